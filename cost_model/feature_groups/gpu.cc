// GpuFeatures: the heaviest GPU kernel of a CUDA schedule: block shape and count, an
// occupancy estimate from the device's limits, coalescing of the innermost thread loop,
// and what it stages in shared memory (isl footprints of one realization) or registers.
#include <algorithm>
#include <cmath>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {
namespace {

// Per SM on every CUDA GPU since Volta (sm_70 .. sm_90).
constexpr double kMaxWarpsPerSm = 64;
constexpr double kMaxBlocksPerSm = 32;
// Registers a thread needs besides its unrolled values: addresses, indices, loop counters.
constexpr double kBaseRegistersPerThread = 32;

}  // namespace

GpuFeatures GpuFeatures::compute(const internal::FeatureInputs& in) {
  GpuFeatures f;
  const scheduler::TargetInfo& t = in.analysis.target;
  int kernel = -1;
  for (size_t i = 0; i < in.model.stages.size(); ++i) {
    const internal::StageModel& sm = in.model.stages[i];
    const bool is_kernel = std::any_of(sm.loops.begin(), sm.loops.end(), [](const auto& l) { return l.gpu_block; });
    if (is_kernel) f.kernels += 1;
  }
  for (int idx : in.by_work) {
    const internal::StageModel& sm = in.model.stages[idx];
    if (std::any_of(sm.loops.begin(), sm.loops.end(), [](const auto& l) { return l.gpu_block; })) {
      kernel = idx;
      break;
    }
  }
  if (kernel < 0) return f;
  const internal::StageModel& sm = in.model.stages[kernel];
  double threads = 1, blocks = 1, unrolled = 1;
  int innermost_thread = -1, outermost_thread = -1;
  for (int p = 0; p < sm.depth(); ++p) {
    const internal::LoopModel& l = sm.loops[p];
    if (l.gpu_thread) {
      threads *= static_cast<double>(l.extent);
      if (innermost_thread < 0) innermost_thread = p;
      outermost_thread = p;
    }
    if (l.gpu_block) blocks *= static_cast<double>(l.extent);
  }
  for (int p = 0; p < innermost_thread; ++p) {
    if (sm.loops[p].unrolled) unrolled *= static_cast<double>(sm.loops[p].extent);
  }
  f.threads_per_block = static_cast<float>(threads);
  f.blocks = static_cast<float>(blocks);
  f.unrolled_per_thread = static_cast<float>(unrolled);
  const double warps = std::ceil(threads / 32);
  f.warp_utilization = static_cast<float>(threads / (32 * warps));

  // Coalescing: the innermost thread loop walks the stored buffer's innermost dimension.
  const scheduler::FuncAnalysis& fa = in.analysis.funcs[sm.func];
  const scheduler::StageAnalysis& sa = fa.stages[sm.stage];
  if (innermost_thread >= 0 && !fa.args.empty()) {
    const internal::LoopModel& tl = sm.loops[innermost_thread];
    for (size_t l = 0; l < sa.loops.size(); ++l) {
      if (sa.loops[l].name == fa.args[0] && in.facts.stages[sm.func][sm.stage].loop_dim[l] == tl.dim && tl.stride == 1) {
        f.coalesced = static_cast<float>(std::min<int64_t>(tl.extent, 32)) / 32.f;
      }
    }
  }

  // What the kernel stages: Funcs computed at its block level or inside its threads.
  double register_values = 0;
  for (size_t func = 0; func < in.model.funcs.size(); ++func) {
    const internal::FuncModel& fm = in.model.funcs[func];
    if (fm.host_stage != kernel) continue;
    const double elements = static_cast<double>(fm.region_elements());
    if (fm.host_level <= outermost_thread || fm.gpu_memory == "register") {
      f.register_funcs += 1;
      register_values += elements;
    } else {
      f.shared_funcs += 1;
      f.shared_bytes += static_cast<float>(elements * in.facts.buffers[func].element_bytes);
    }
  }

  // Occupancy: resident blocks per SM under each limit.
  double per_sm = std::min(kMaxBlocksPerSm, std::floor(kMaxWarpsPerSm / warps));
  if (f.shared_bytes > 0) {
    const double sm_shared = t.shared_bytes_per_sm > 0 ? t.shared_bytes_per_sm : 2 * t.shared_bytes_per_block;
    per_sm = std::min(per_sm, std::floor(sm_shared / f.shared_bytes));
  }
  const double registers = std::min(255.0, kBaseRegistersPerThread + unrolled + register_values);
  per_sm = std::min(per_sm, std::floor(t.registers_per_sm / (registers * 32 * warps)));
  per_sm = std::max(per_sm, 0.0);
  f.occupancy = static_cast<float>(std::min(1.0, per_sm * warps / kMaxWarpsPerSm));
  if (t.sm_count > 0 && per_sm > 0) f.waves = static_cast<float>(blocks / (t.sm_count * per_sm));
  return f;
}

std::vector<std::string> GpuFeatures::names() {
  return {"kernels", "threads_per_block", "blocks",       "warp_utilization", "occupancy",          "waves",
          "coalesced", "shared_bytes",    "shared_funcs", "register_funcs",   "unrolled_per_thread"};
}

void GpuFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {kernels, threads_per_block, blocks, warp_utilization, occupancy, waves, coalesced,
                         shared_bytes, shared_funcs, register_funcs, unrolled_per_thread});
}

}  // namespace ktune::cost_model
