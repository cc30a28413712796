// The sampler and heuristic for CUDA targets (Space::build_gpu). Funcs are decided from
// the outputs back to the inputs, like on a CPU: cheap pointwise producers are inlined;
// every other Func is a kernel of its own (blocks of threads over its two innermost pure
// loops, reductions serial in each thread, or a starved reduction split with rfactor into
// a second kernel, scheduler/gpu_rfactor.h), is staged in shared memory at its consumer's
// block level with its own thread mapping, or is computed inside its consumer's threads
// (small ones held in registers).
#include <algorithm>

#include "scheduler/gpu_footprint.h"
#include "scheduler/gpu_rfactor.h"
#include "scheduler/gpu_stage_template.h"
#include "scheduler/host_consumer.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

GpuTilingChoice sampled_gpu_choice(const StageAnalysis& sa, const TargetInfo& t, Rng& rng) {
  GpuTilingChoice c;
  const LoopAnalysis* x = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (!x) return c;
  // Every (x, y) thread shape within the device's limit; mostly at least two warps.
  std::vector<std::pair<int64_t, int64_t>> shapes, wide;
  for (int64_t tx : {16, 32, 64, 128}) {
    for (int64_t ty : {1, 2, 4, 8, 16}) {
      if (!y && ty > 1) continue;
      const int64_t n = std::min(tx, x->extent) * (y ? std::min(ty, y->extent) : 1);
      if (n > t.max_threads_per_block) continue;
      shapes.emplace_back(tx, ty);
      if (n >= 64) wide.emplace_back(tx, ty);
    }
  }
  if (shapes.empty()) return c;
  const auto [tx, ty] = !wide.empty() && rng.chance(0.9) ? rng.pick(wide) : rng.pick(shapes);
  c.threads_x = tx;
  c.threads_y = ty;
  if (y && ty * 4 <= y->extent) c.rows_per_thread = rng.pick(std::vector<int64_t>{1, 1, 2, 4});
  if (const LoopAnalysis* r = sa.first_reduction()) {
    std::vector<int64_t> splits = {0, 0};
    for (int64_t f : {2, 4, 8}) {
      if (f < r->extent) splits.push_back(f);
    }
    c.reduction_split = rng.pick(splits);
  }
  return c;
}

// A kernel's stage: split with rfactor when the reduction is starved (the heuristic when it
// is clearly starved; the sampler half of the time when it is starved at all, see
// gpu_rfactor.h for the rule), else blocks of threads with the reduction serial in each.
StageSchedule kernel_stage(const FuncAnalysis& fa, const StageAnalysis& sa, const TargetInfo& t, Rng* rng) {
  if (!rng && gpu_reduction_clearly_starved(fa, sa, t)) {
    return make_gpu_rfactor_stage(sa, heuristic_gpu_rfactor(fa, sa, t));
  }
  if (rng && gpu_reduction_starved(fa, sa, t) && rng->chance(0.5)) {
    return make_gpu_rfactor_stage(sa, sampled_gpu_rfactor(fa, sa, t, *rng));
  }
  return make_gpu_stage(sa, rng ? sampled_gpu_choice(sa, t, *rng) : heuristic_gpu_tiling(sa), true);
}

StageSchedule& stage_zero(FuncSchedule& f) {
  for (StageSchedule& st : f.stages) {
    if (st.stage == 0) return st;
  }
  f.stages.insert(f.stages.begin(), StageSchedule{});
  return f.stages.front();
}

}  // namespace

Schedule Space::build_gpu(Rng* rng) const {
  const TargetInfo& t = analysis_.target;
  Schedule s;
  s.funcs.resize(analysis_.funcs.size());
  for (int i = static_cast<int>(analysis_.funcs.size()) - 1; i >= 0; --i) {
    const FuncAnalysis& fa = analysis_.funcs[i];
    FuncSchedule& f = s.funcs[i];
    f.func = fa.name;
    const bool can_inline = !fa.has_updates() && !fa.is_output;
    bool consumed_by_reduction = fa.consumers.size() > 1;
    for (const auto& [cf, cstage] : fa.consumers) consumed_by_reduction |= cstage > 0;

    // The consumer's innermost block loop and innermost thread loop, when it is a kernel
    // and calls this Func from its last stage (the only one Halide 14 computes at).
    std::optional<ComputeLocation> block_at, thread_at;
    const auto [consumer, use_stage] = host_consumer(analysis_, s, i);
    if (!fa.is_output && consumer >= 0 && s.funcs[consumer].compute.kind == ComputeLocation::Kind::kRoot &&
        use_stage == static_cast<int>(analysis_.funcs[consumer].stages.size()) - 1 &&
        !s.funcs[consumer].stage_or_empty(use_stage).rfactor) {  // an rfactor's intermediate reads it
      const StageSchedule cst = s.funcs[consumer].stage_or_empty(use_stage);
      if (!cst.gpu.blocks.empty()) block_at = ComputeLocation{ComputeLocation::Kind::kAt, analysis_.funcs[consumer].name, use_stage, cst.gpu.blocks[0]};
      if (!cst.gpu.threads.empty()) thread_at = ComputeLocation{ComputeLocation::Kind::kAt, analysis_.funcs[consumer].name, use_stage, cst.gpu.threads[0]};
    }
    auto shared_fits = [&](const ComputeLocation& at, double share) {
      const auto elements = producer_footprint(analysis_, s, i, at);
      return elements && *elements * fa.element_bytes <= share * t.shared_bytes_per_block;
    };

    enum class Place { kInline, kKernel, kBlock, kThread } place = Place::kKernel;
    if (fa.is_output) {
      place = Place::kKernel;
    } else if (!rng) {
      if (can_inline && !consumed_by_reduction) {
        place = Place::kInline;
      } else if (!fa.has_updates() && block_at && shared_fits(*block_at, 0.5)) {
        place = Place::kBlock;
      }
    } else if (can_inline && rng->chance(consumed_by_reduction ? 0.35 : 0.6)) {
      place = Place::kInline;
    } else {
      std::vector<Place> places = {Place::kKernel, Place::kKernel};
      if (block_at) places.insert(places.end(), {Place::kBlock, Place::kBlock});
      if (thread_at) places.push_back(Place::kThread);
      place = rng->pick(places);
    }

    switch (place) {
      case Place::kInline:
        f.compute.kind = ComputeLocation::Kind::kInline;
        break;
      case Place::kKernel:
        f.compute.kind = ComputeLocation::Kind::kRoot;
        for (const StageAnalysis& sa : fa.stages) f.stages.push_back(kernel_stage(fa, sa, t, rng));
        break;
      case Place::kBlock:
        f.compute = *block_at;
        for (const StageAnalysis& sa : fa.stages) {
          f.stages.push_back(make_gpu_stage(sa, rng ? sampled_gpu_choice(sa, t, *rng) : heuristic_gpu_tiling(sa), false));
        }
        // Staged in shared memory explicitly, or left to Halide (which also picks shared
        // memory at the block level).
        if (!rng || rng->chance(0.7)) stage_zero(f).gpu.memory = "shared";
        break;
      case Place::kThread: {
        f.compute = *thread_at;
        const auto elements = producer_footprint(analysis_, s, i, *thread_at);
        if (!fa.has_updates() && elements && *elements <= 16 && rng->chance(0.5)) stage_zero(f).gpu.memory = "register";
        break;
      }
    }
  }
  return s;
}

}  // namespace ktune::scheduler
