#include "scheduler/root_inlining.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "scheduler/inline_cost.h"

namespace ktune::scheduler {
namespace {

// Bytes past which a Func's buffer leaves the per-core caches: stored at root, it makes a
// round trip through memory (and, in the user's build, a fresh mapping per call).
constexpr double kCachedBytes = 1 << 20;

// Operations recomputed per point (the Func's arithmetic times how often each point is
// computed) up to which recomputing costs less than that round trip: a few cycles a point
// against vector arithmetic of 16 lanes. On the public local_laplacian (2-core AMD EPYC,
// `ktune measure --named heuristic`), 64 left its 200 MB base level at root (147 ms), 128
// inlined it and the downsampling first passes as its authors do (120 ms, 238 ms before);
// 200 inlined nothing more.
constexpr double kRecomputedOps = 128;

// The most arithmetic a reader may carry once the Func is inlined into it: past it, LLVM's
// time per candidate grows faster than the pass it saves.
constexpr int64_t kMostReaderOps = 256;

double points_of(const FuncAnalysis& fa) {
  double n = 1;
  for (int64_t e : fa.extents) n *= static_cast<double>(std::max<int64_t>(1, e));
  return n;
}

// True when `fs` is a pure, non-output Func at root, larger than the caches, that inlining
// could take.
bool large_pure_root(const FuncAnalysis& fa, const FuncSchedule& fs) {
  const bool bounded = std::none_of(fa.unbounded_dims.begin(), fa.unbounded_dims.end(), [](bool b) { return b; });
  return !fa.is_output && !fa.has_updates() && fs.compute.kind == ComputeLocation::Kind::kRoot &&
         !fa.consumers.empty() && bounded && points_of(fa) * fa.element_bytes >= kCachedBytes;
}

// True when `schedule` places something at Func `name`'s loops (a producer computed there, an
// input's pack) or computes a sibling with it: inlined, it would leave them without a loop.
bool anchors_another(const Schedule& schedule, const std::string& name) {
  const auto at_it = [&](const ComputeLocation& c) { return c.kind == ComputeLocation::Kind::kAt && c.consumer == name; };
  for (const FuncSchedule& fs : schedule.funcs) {
    if (at_it(fs.compute) || fs.compute_with.func == name || (fs.func == name && !fs.compute_with.empty())) return true;
  }
  return std::any_of(schedule.packs.begin(), schedule.packs.end(), [&](const InputPack& p) { return at_it(p.compute); });
}

// times_computed_inlined, remembering each Func's answer in `known` (a pipeline's readers
// form a DAG: without it, every path to the output would be walked again).
double times_computed(const Analysis& analysis, const Schedule& schedule, int func, std::map<int, double>& known) {
  if (const auto it = known.find(func); it != known.end()) return it->second;
  const FuncAnalysis& fa = analysis.funcs[func];
  double most = 1;
  for (const auto& [reader, stage] : fa.consumers) {
    if (stage > 0) return known[func] = std::numeric_limits<double>::max();
    const StageAnalysis& sa = analysis.funcs[reader].stages[stage];
    std::set<std::string> points;
    for (const ProducerUse& use : sa.uses) {
      if (use.func == func) points.insert(use.access);
    }
    const double per_reader = static_cast<double>(sa.pure_iterations()) * static_cast<double>(points.size());
    double times = std::max(1.0, per_reader / points_of(fa));
    if (schedule.funcs[reader].compute.kind == ComputeLocation::Kind::kInline) {
      times *= times_computed(analysis, schedule, reader, known);
    }
    most = std::max(most, times);
  }
  return known[func] = most;
}

// True when every reader of Func `func` carries at most kMostReaderOps with what it inlines.
bool readers_stay_small(const Analysis& analysis, const Schedule& schedule, int func) {
  for (const auto& [reader, stage] : analysis.funcs[func].consumers) {
    if (inlined_ops(analysis, schedule, reader, stage) > kMostReaderOps) return false;
  }
  return true;
}

}  // namespace

double times_computed_inlined(const Analysis& analysis, const Schedule& schedule, int func) {
  std::map<int, double> known;
  return times_computed(analysis, schedule, func, known);
}

int inline_cheap_roots(const Analysis& analysis, Schedule& schedule) {
  if (schedule.funcs.size() != analysis.funcs.size()) return 0;
  int inlined = 0;
  for (int f = 0; f < static_cast<int>(analysis.funcs.size()); ++f) {
    FuncSchedule& fs = schedule.funcs[f];
    if (!large_pure_root(analysis.funcs[f], fs) || anchors_another(schedule, fs.func)) continue;
    const double ops = static_cast<double>(inlined_ops(analysis, schedule, f, 0));
    if (ops * times_computed_inlined(analysis, schedule, f) > kRecomputedOps) continue;
    const FuncSchedule kept = fs;
    fs.compute = ComputeLocation{};
    fs.compute.kind = ComputeLocation::Kind::kInline;
    fs.stages.clear();
    fs.storage.clear();
    if (readers_stay_small(analysis, schedule, f)) {
      ++inlined;
    } else {
      fs = kept;
    }
  }
  return inlined;
}

}  // namespace ktune::scheduler
