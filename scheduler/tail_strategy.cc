#include "scheduler/tail_strategy.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

// The loop `split` (one of stage.splits, or a copy of one with another tail) splits, as it
// is when the split is applied; nullopt if it does not exist.
std::optional<NestLoop> loop_before(const StageAnalysis& sa, const StageSchedule& stage, const LoopSplit& split) {
  StageSchedule before = stage;
  before.order.clear();
  before.splits.clear();
  for (const LoopSplit& s : stage.splits) {
    if (s.loop == split.loop && s.outer == split.outer && s.inner == split.inner) break;
    before.splits.push_back(s);
  }
  std::string error;
  const auto nest = build_loop_nest(sa, before, &error);
  const NestLoop* l = nest ? nest->find(split.loop) : nullptr;
  if (!l) return std::nullopt;
  return *l;
}

// The first read, by a stage of Func `func`, along its loop `loop` that a larger region
// could push outside an input's bounds, followed into the Funcs it reads (a producer's region
// grows along the dimensions the loop indexes); empty when every such read is clamped (a
// boundary condition, such as a convolution's zero padding). Each (Func, loop) is answered
// once per walk: a pyramid has exponentially many paths through a linear number of Funcs.
class UnsafeReadWalk {
 public:
  explicit UnsafeReadWalk(const Analysis& analysis) : analysis_(analysis) {}

  std::string along(int func, const std::string& loop) {
    const std::pair<int, std::string> key{func, loop};
    if (const auto known = answers_.find(key); known != answers_.end()) return known->second;
    // A Func met again on its own path would be a cycle, which a pipeline never has: unsafe.
    answers_[key] = analysis_.funcs[func].name;
    return answers_[key] = first_unsafe_read(func, loop);
  }

 private:
  std::string first_unsafe_read(int func, const std::string& loop) {
    for (const StageAnalysis& sa : analysis_.funcs[func].stages) {
      for (const ProducerUse& use : sa.uses) {
        if (use.func == func) continue;
        for (size_t d = 0; d < use.dim_loops.size(); ++d) {
          if (!has_loop(use.dim_loops[d], loop)) continue;
          if (!read_stays_in_bounds(use, d)) return use.name;
        }
      }
    }
    return "";
  }

  // True when dimension `d` of `use`, indexed by the loop, cannot leave an input's bounds.
  bool read_stays_in_bounds(const ProducerUse& use, size_t d) {
    if (use.func < 0) return d < use.clamped_dims.size() && use.clamped_dims[d];
    const FuncAnalysis& producer = analysis_.funcs[use.func];
    return d < producer.args.size() && along(use.func, producer.args[d]).empty();
  }

  const Analysis& analysis_;
  std::map<std::pair<int, std::string>, std::string> answers_;
};

// Iterations of the original loop one iteration of `loop` (an original loop or an outer
// piece) spans: the product of the factors of the splits whose outer pieces lead to it.
int64_t span_of(const StageSchedule& stage, const std::string& loop) {
  for (const LoopSplit& s : stage.splits) {
    if (s.outer == loop) return span_of(stage, s.loop) * s.factor;
  }
  return 1;
}

// True when Func `func`, computed at a loop of its consumer, computes its whole extent
// along its pure variable `var` (at least `factor` wide) each time: the consumer has a pure
// variable of that name, and none of its loops from that loop outward walks `var` (a
// window of an image strip, computed per row of its reader, spans the row's columns and
// its halo). A shifted last tile then stays inside what it computes anyway.
bool spans_whole_loop_at_its_location(const Analysis& analysis, const Schedule& all, const FuncAnalysis& func,
                                      const FuncSchedule& schedule, const std::string& var, int64_t factor) {
  const ComputeLocation& at = schedule.compute;
  const FuncAnalysis* host = analysis.find(at.consumer);
  const FuncSchedule* host_schedule = all.find(at.consumer);
  const auto d = std::find(func.args.begin(), func.args.end(), var);
  // The host walks `var` under the same name (a Bayer plane read by the image it makes has
  // fewer dimensions than it, not other ones).
  if (!host || !host_schedule || d == func.args.end()) return false;
  if (at.consumer_stage < 0 || at.consumer_stage >= static_cast<int>(host->stages.size())) return false;
  if (std::find(host->args.begin(), host->args.end(), var) == host->args.end()) return false;
  if (func.extents[static_cast<size_t>(d - func.args.begin())] < factor) return false;
  std::string error;
  const auto nest = build_loop_nest(host->stages[at.consumer_stage], host_schedule->stage_or_empty(at.consumer_stage), &error);
  const int from = nest ? nest->position(at.loop) : -1;
  if (from < 0) return false;
  for (size_t i = static_cast<size_t>(from); i < nest->loops.size(); ++i) {
    if (nest->loops[i].origin == var) return false;
  }
  return true;
}

// The Funcs an accumulator (a Func with updates: a matmul's sums, a scan, a row's maximum)
// is computed at a loop of. A guarded tile of such a host gives the accumulator a region of
// no constant size (the last tile's), so Halide indexes it with a run-time stride and LLVM
// cannot keep its sums in registers across the reduction; a shifted tile keeps the region
// constant.
std::set<std::string> accumulator_hosts(const Analysis& analysis, const Schedule& schedule) {
  std::set<std::string> hosts;
  for (size_t f = 0; f < schedule.funcs.size(); ++f) {
    const ComputeLocation& c = schedule.funcs[f].compute;
    const FuncAnalysis* fa = analysis.find(schedule.funcs[f].func);
    if (c.kind == ComputeLocation::Kind::kAt && fa && fa->has_updates()) hosts.insert(c.consumer);
  }
  return hosts;
}

// True when `split`'s outer piece, or a piece split from it later, is a loop strictly between
// a sliding window's compute loop and its store loop in this stage: shifting its last
// iteration back walks the loops inside it backwards, and Halide, which slides forwards
// only, then reads points it never computed (attention's scores as a window stored per head
// and computed per column of a tile gave zeros). A shifted compute loop itself only
// recomputes nothing for points its window holds already.
bool shifts_under_a_window(const Schedule& all, const FuncAnalysis& func, const StageAnalysis& sa,
                           const StageSchedule& stage, const LoopSplit& split) {
  std::set<std::string> pieces{split.outer};
  bool after = false;
  for (const LoopSplit& s : stage.splits) {
    if (after && pieces.count(s.loop)) pieces.insert({s.outer, s.inner});
    after |= s.loop == split.loop && s.outer == split.outer && s.inner == split.inner;
  }
  std::string error;
  const auto nest = build_loop_nest(sa, stage, &error);
  if (!nest) return false;
  for (const FuncSchedule& guest : all.funcs) {
    const ComputeLocation& c = guest.compute;
    if (!c.sliding() || c.consumer != func.name || c.consumer_stage != stage.stage) continue;
    const int compute = nest->position(c.loop), store = nest->position(c.store_loop);
    for (int p = compute + 1; compute >= 0 && p < store; ++p) {
      if (pieces.count(nest->loops[p].name)) return true;
    }
  }
  return false;
}

}  // namespace

bool splits_pure_loop(const FuncAnalysis& func, const StageSchedule& stage, const LoopSplit& split) {
  if (stage.stage < 0 || stage.stage >= static_cast<int>(func.stages.size())) return false;
  const auto loop = loop_before(func.stages[stage.stage], stage, split);
  return loop && !loop->is_reduction;
}

std::optional<std::string> tail_refusal(const Analysis& analysis, const Schedule& all, const FuncAnalysis& func,
                                        const FuncSchedule& schedule, const StageSchedule& stage, const LoopSplit& split) {
  if (split.tail == Tail::kGuard) return std::nullopt;
  const std::string what = std::string("the ") + to_string(split.tail) + " tail of \"" + split.loop + "\" ";
  if (stage.stage < 0 || stage.stage >= static_cast<int>(func.stages.size())) return std::nullopt;
  const StageAnalysis& sa = func.stages[stage.stage];
  const auto loop = loop_before(sa, stage, split);
  if (!loop) return std::nullopt;  // the structure validator names the missing loop
  if (loop->is_reduction) return what + "is for pure loops only";
  if (split.tail == Tail::kShiftInwards) {
    const bool whole = schedule.compute.kind == ComputeLocation::Kind::kRoot ||
                       (schedule.compute.kind == ComputeLocation::Kind::kAt &&
                        spans_whole_loop_at_its_location(analysis, all, func, schedule, loop->origin, split.factor));
    if (func.has_updates() || !whole) {
      return what + "needs a Func without updates computed at root, or at a loop outside which its consumer never "
                    "walks that variable (Halide refuses it in update definitions, and a consumer's tile may be "
                    "shorter than the factor)";
    }
    if (shifts_under_a_window(all, func, sa, stage, split)) {
      return what + "would walk a sliding window backwards (its loop lies between the window's compute and store "
                    "loops, and Halide slides forwards only)";
    }
    return std::nullopt;
  }
  if (func.is_output) return what + "would write past the output";
  // The whole Func's region grows, so every stage's reads along the loop must stay in bounds;
  // an inlined Func's reads count as the reader's own (its indices are not traced, so any
  // input it reads at all counts).
  if (const std::string read = UnsafeReadWalk(analysis).along(analysis.index_of(func.name), loop->origin); !read.empty()) {
    const FuncSchedule* rs = all.find(read);
    const bool inlined = rs && rs->compute.kind == ComputeLocation::Kind::kInline;
    return what + "would read " + (analysis.find_input(read) ? "input" : inlined ? "inlined Func" : "Func") + " \"" +
           read + "\" past " + (analysis.find_input(read) ? "its bounds" : "the inputs' bounds");
  }
  for (const StageSchedule& other : schedule.stages) {
    if (other.rfactor) return what + "would grow the region of an rfactor intermediate";
  }
  return std::nullopt;
}

std::vector<Tail> allowed_tails(const Analysis& analysis, const Schedule& all, const FuncAnalysis& func,
                                const FuncSchedule& schedule, const StageSchedule& stage, const LoopSplit& split) {
  std::vector<Tail> allowed;
  for (Tail t : {Tail::kShiftInwards, Tail::kRoundUp}) {
    LoopSplit candidate = split;
    candidate.tail = t;
    if (!tail_refusal(analysis, all, func, schedule, stage, candidate)) allowed.push_back(t);
  }
  return allowed;
}

std::map<std::string, int64_t> update_round_ups(const FuncAnalysis& func, const FuncSchedule& schedule) {
  std::map<std::string, int64_t> multiples;
  for (const StageSchedule& st : schedule.stages) {
    if (st.stage < 1 || st.stage >= static_cast<int>(func.stages.size()) || st.rfactor) continue;
    for (const LoopSplit& split : st.splits) {
      if (split.tail != Tail::kRoundUp) continue;
      const auto loop = loop_before(func.stages[st.stage], st, split);
      if (!loop || loop->is_reduction) continue;
      const int64_t tile = span_of(st, split.loop) * split.factor;
      int64_t& m = multiples.emplace(loop->origin, 1).first->second;
      m = std::lcm(m, tile);
    }
  }
  return multiples;
}

void choose_tails(const Analysis& analysis, Schedule& schedule, Rng* rng) {
  const std::set<std::string> hosts = accumulator_hosts(analysis, schedule);
  for (FuncSchedule& f : schedule.funcs) {
    if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
    const FuncAnalysis* fa = analysis.find(f.func);
    if (!fa) continue;
    for (StageSchedule& st : f.stages) {
      if (st.rfactor || !st.gpu.empty() || st.stage >= static_cast<int>(fa->stages.size())) continue;
      for (LoopSplit& split : st.splits) {
        const auto loop = loop_before(fa->stages[st.stage], st, split);
        if (!loop || loop->is_reduction) continue;
        const bool tiled = f.compute.kind == ComputeLocation::Kind::kAt;
        if (!tiled && loop->extent % split.factor == 0 && !hosts.count(f.func)) continue;
        const std::vector<Tail> allowed = allowed_tails(analysis, schedule, *fa, f, st, split);
        if (allowed.empty()) continue;
        if (!rng) {
          // A tail set before (a strip's shift, image_strips.h) stays where it is allowed.
          if (split.tail != Tail::kGuard && std::find(allowed.begin(), allowed.end(), split.tail) != allowed.end()) continue;
          split.tail = allowed.front();
        } else if (rng->chance(0.7)) {
          split.tail = rng->pick(allowed);
        }
      }
    }
  }
}

}  // namespace ktune::scheduler
