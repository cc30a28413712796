// The analytical estimate of a CUDA schedule's run time, for ranking before a learned model
// exists: the slowest of arithmetic, load/store issue and DRAM traffic at the GPU's peak
// rates, each divided by how well the heaviest kernel can use the GPU (busy warp slots,
// active lanes, tail of the last wave, coalescing of its memory accesses), plus a launch
// cost per kernel. A schedule that runs nothing on the GPU is costed as one CPU thread.
#pragma once

namespace ktune::scheduler {
struct TargetInfo;
}

namespace ktune::cost_model {

// Rates the estimate assumes for one SM; defaults fit A100/H100-class GPUs.
struct GpuRates {
  double clock_hz = 1.5e9;            // SM clock
  double fp32_lanes_per_sm = 128;     // arithmetic lanes (one FMA each per clock)
  double lsu_lanes_per_sm = 32;       // load/store lanes
  double default_memory_gbps = 1500;  // when the device does not say
  double launch_seconds = 4e-6;       // launching one kernel and waiting for it
  double saturating_slots = 0.25;     // share of the SM's warp slots that hides latency
  double host_ops_per_second = 3e9;   // a schedule left on the host: one CPU thread
};

// What the estimate reads (the gpu, arith and memory feature groups of one schedule).
struct GpuTerms {
  double ops = 0;               // arithmetic operations of one call
  double loads_and_stores = 0;  // load and store instructions (scalar)
  double dram_bytes = 0;        // bytes from and to DRAM
  double kernels = 0;           // GPU kernels launched
  double warp_utilization = 0;  // active lanes of the heaviest kernel's warps, 0..1
  double occupancy = 0;         // resident warps per SM / 64, 0..1
  double waves = 0;             // blocks / (SMs x resident blocks per SM)
  double coalesced = 0;         // 0..1, the innermost thread loop's coalescing
};

// Seconds of one call on the GPU described by `target` (sm_count, memory_gbps).
double gpu_roofline_seconds(const GpuTerms& terms, const scheduler::TargetInfo& target, const GpuRates& rates = {});

}  // namespace ktune::cost_model
