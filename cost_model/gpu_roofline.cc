#include "cost_model/gpu_roofline.h"

#include <algorithm>
#include <cmath>

#include "scheduler/target_info.h"

namespace ktune::cost_model {

double gpu_roofline_seconds(const GpuTerms& t, const scheduler::TargetInfo& target, const GpuRates& r) {
  if (t.kernels <= 0) return std::max(t.ops, t.loads_and_stores) / r.host_ops_per_second;
  const double sms = std::max(1, target.sm_count);
  // Busy warp slots of the whole GPU: resident warps per SM, times the share of SMs that
  // have blocks at all (fewer blocks than one wave leave SMs idle). Beyond a quarter of the
  // slots, latency is hidden and more warps do not help.
  const double slots = std::clamp(t.occupancy, 0.0, 1.0) * std::min(1.0, std::max(t.waves, 0.0));
  const double latency_hiding = std::min(1.0, slots / r.saturating_slots);
  // The last wave of blocks runs partly empty.
  const double tail = t.waves > 1 ? t.waves / std::ceil(t.waves) : 1.0;
  const double efficiency = std::max(1e-4, latency_hiding * tail * std::clamp(t.warp_utilization, 0.0, 1.0));
  // Uncoalesced accesses fetch whole 32-byte sectors for 4-byte elements.
  const double memory_efficiency = std::max(1e-4, latency_hiding * tail * (0.125 + 0.875 * std::clamp(t.coalesced, 0.0, 1.0)));

  const double compute = t.ops / (sms * r.fp32_lanes_per_sm * r.clock_hz) / efficiency;
  const double issue = t.loads_and_stores / (sms * r.lsu_lanes_per_sm * r.clock_hz) / efficiency;
  const double gbps = target.memory_gbps > 0 ? target.memory_gbps : r.default_memory_gbps;
  const double dram = t.dram_bytes / (gbps * 1e9) / memory_efficiency;
  return std::max({compute, issue, dram}) + t.kernels * r.launch_seconds;
}

}  // namespace ktune::cost_model
