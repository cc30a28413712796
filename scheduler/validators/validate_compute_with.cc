// compute_with (a Func's pure stage in a sibling's loop nest): what Halide 14 accepts and
// fuses safely. CPU targets only; two distinct Funcs without updates, neither inlined,
// computed at the same location, neither reading the other (directly or through other
// Funcs), the sibling not computed with a third; and the loops they share, from the named
// loop outward, the same loops in both pure stages: same names, in the same order, each
// parallel, vectorized or unrolled in both or in neither, the parallel loops fused alike.
#include <algorithm>
#include <set>
#include <vector>

#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// True when Func `to` reads Func `from`, directly or through other Funcs.
bool reads(const Analysis& a, int to, int from) {
  std::vector<int> pending = {from};
  std::set<int> seen;
  while (!pending.empty()) {
    const int f = pending.back();
    pending.pop_back();
    for (const auto& [consumer, stage] : a.funcs[f].consumers) {
      if (consumer == to) return true;
      if (seen.insert(consumer).second) pending.push_back(consumer);
    }
  }
  return false;
}

// How a shared loop runs in `stage`: "parallel", "vectorized", "unrolled" or "serial".
std::string loop_kind(const StageSchedule& stage, const std::string& loop) {
  const auto in = [&](const std::vector<std::string>& loops) { return std::find(loops.begin(), loops.end(), loop) != loops.end(); };
  if (in(stage.parallel)) return "parallel";
  if (stage.vectorize == loop) return "vectorized";
  if (in(stage.unroll)) return "unrolled";
  return "serial";
}

// The loops of a pure stage from `loop` outward, or an error.
std::optional<std::vector<std::string>> shared_loops(const Analysis& a, const FuncSchedule& fs, const std::string& loop,
                                                     std::string* error) {
  const StageSchedule stage = fs.stage_or_empty(0);
  const auto nest = build_loop_nest(a.find(fs.func)->stages[0], stage, error);
  if (!nest) return std::nullopt;
  const int at = nest->position(loop);
  if (at < 0) {
    *error = fs.func + " has no loop \"" + loop + "\"";
    return std::nullopt;
  }
  std::vector<std::string> loops;
  for (size_t i = static_cast<size_t>(at); i < nest->loops.size(); ++i) loops.push_back(nest->loops[i].name);
  return loops;
}

std::optional<std::string> loops_problem(const Analysis& a, const FuncSchedule& fs, const FuncSchedule& sibling) {
  const std::string& loop = fs.compute_with.loop;
  std::string error;
  const auto own = shared_loops(a, fs, loop, &error);
  const auto theirs = own ? shared_loops(a, sibling, loop, &error) : std::nullopt;
  if (!own || !theirs) return error;
  if (*own != *theirs) return "the loops from \"" + loop + "\" outward differ from " + sibling.func + "'s";
  const StageSchedule mine = fs.stage_or_empty(0), other = sibling.stage_or_empty(0);
  for (const std::string& l : *own) {
    if (loop_kind(mine, l) != loop_kind(other, l)) {
      return "loop \"" + l + "\" is " + loop_kind(mine, l) + " here and " + loop_kind(other, l) + " in " + sibling.func;
    }
  }
  if (!mine.parallel.empty() && mine.parallel != other.parallel) return "its parallel loops are fused unlike " + sibling.func + "'s";
  return std::nullopt;
}

std::optional<std::string> compute_with_problem(const Schedule& s, const Analysis& a, const FuncSchedule& fs) {
  const int own = a.index_of(fs.func), other = a.index_of(fs.compute_with.func);
  const FuncSchedule* sibling = s.find(fs.compute_with.func);
  if (other < 0 || !sibling) return "unknown Func \"" + fs.compute_with.func + "\"";
  if (other == own) return "a Func is not computed with itself";
  if (!sibling->compute_with.empty()) return fs.compute_with.func + " is computed with " + sibling->compute_with.func + " itself";
  if (a.funcs[own].has_updates() || a.funcs[other].has_updates()) return "only Funcs without updates are computed together";
  if (fs.compute.kind == ComputeLocation::Kind::kInline || sibling->compute.kind == ComputeLocation::Kind::kInline) {
    return "an inlined Func has no loops to share";
  }
  if (!(fs.compute == sibling->compute)) return "it is not computed where " + fs.compute_with.func + " is";
  if (reads(a, own, other) || reads(a, other, own)) return "one of the two reads the other";
  return loops_problem(a, fs, *sibling);
}

class ComputeWithValidator : public Validator {
 public:
  std::string_view name() const override { return "compute_with"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& fs : s.funcs) {
      if (fs.compute_with.empty()) continue;
      const std::string where = fs.func + " compute_with " + fs.compute_with.func + ": ";
      if (a.target.is_gpu()) return where + "compute_with is for CPU targets";
      if (auto problem = compute_with_problem(s, a, fs)) return where + *problem;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_compute_with_validator() { return std::make_unique<ComputeWithValidator>(); }

}  // namespace ktune::scheduler
