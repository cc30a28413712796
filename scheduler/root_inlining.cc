#include "scheduler/root_inlining.h"

#include <algorithm>
#include <limits>
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

// True when `fs` is a pure, non-output Func at root that inlining could take.
bool inlinable_root(const FuncAnalysis& fa, const FuncSchedule& fs) {
  return !fa.is_output && !fa.has_updates() && fs.compute.kind == ComputeLocation::Kind::kRoot &&
         !fa.consumers.empty() &&
         std::none_of(fa.unbounded_dims.begin(), fa.unbounded_dims.end(), [](bool b) { return b; });
}

// True when some Func of `schedule` is computed at a loop of Func `name`.
bool hosts_a_producer(const Schedule& schedule, const std::string& name) {
  return std::any_of(schedule.funcs.begin(), schedule.funcs.end(), [&](const FuncSchedule& fs) {
    return fs.compute.kind == ComputeLocation::Kind::kAt && fs.compute.consumer == name;
  });
}

}  // namespace

double times_computed_inlined(const Analysis& analysis, const Schedule& schedule, int func) {
  const FuncAnalysis& fa = analysis.funcs[func];
  double most = 1;
  for (const auto& [reader, stage] : fa.consumers) {
    if (stage > 0) return std::numeric_limits<double>::max();
    const StageAnalysis& sa = analysis.funcs[reader].stages[stage];
    std::set<std::string> points;
    for (const ProducerUse& use : sa.uses) {
      if (use.func == func) points.insert(use.access);
    }
    double times = static_cast<double>(sa.pure_iterations()) * static_cast<double>(points.size()) / points_of(fa);
    times = std::max(1.0, times);
    if (schedule.funcs[reader].compute.kind == ComputeLocation::Kind::kInline) {
      times *= times_computed_inlined(analysis, schedule, reader);
    }
    most = std::max(most, times);
  }
  return most;
}

int inline_cheap_roots(const Analysis& analysis, Schedule& schedule) {
  if (schedule.funcs.size() != analysis.funcs.size()) return 0;
  int inlined = 0;
  for (int f = 0; f < static_cast<int>(analysis.funcs.size()); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (!inlinable_root(fa, fs) || hosts_a_producer(schedule, fa.name) || points_of(fa) * fa.element_bytes < kCachedBytes) continue;
    const double recomputed =
        static_cast<double>(inlined_ops(analysis, schedule, f, 0)) * times_computed_inlined(analysis, schedule, f);
    if (recomputed > kRecomputedOps) continue;
    const FuncSchedule kept = fs;
    fs.compute = ComputeLocation{};
    fs.compute.kind = ComputeLocation::Kind::kInline;
    fs.stages.clear();
    bool readers_small = true;
    for (const auto& [reader, stage] : fa.consumers) {
      readers_small &= inlined_ops(analysis, schedule, reader, stage) <= kMostReaderOps;
    }
    if (!readers_small) {
      fs = kept;
      continue;
    }
    ++inlined;
  }
  return inlined;
}

}  // namespace ktune::scheduler
