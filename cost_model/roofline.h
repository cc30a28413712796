// The roofline estimate of one schedule's run time: the slowest of arithmetic, load issue
// and each memory level's traffic, plus the packs' copies, loop, TLB, task and allocation
// overheads. The cost
// features carry it (cost.estimate_seconds) and the AnalyticalModel ranks by it.
#pragma once

namespace ktune::cost_model {

// Machine rates the estimate assumes; per core unless stated.
struct AnalyticalRates {
  double cycles_per_second = 3.0e9;     // core clock
  double instructions_per_cycle = 2;    // arithmetic vector instructions (two FMA ports)
  double loads_per_cycle = 2;           // load instructions (vector or scalar)
  double l1_bytes_per_second = 100e9;   // L2 -> L1 fill rate
  double l2_bytes_per_second = 40e9;    // LLC -> L2 fill rate
  double dram_bytes_per_second = 15e9;  // DRAM -> LLC, shared by every core
  double loop_iteration_cycles = 1;     // one iteration of a loop that is not unrolled or vectorized
  double tlb_miss_seconds = 5e-9;       // one TLB miss served from the second-level TLB or a walk
  double task_seconds = 1e-7;           // one parallel task's scheduling, paid by the core that runs it
  double parallel_loop_seconds = 2e-6;  // entering and leaving one parallel loop
  double realization_seconds = 1e-7;    // allocating one compute_at realization
};

// The quantities the estimate combines (CostFeatures, already divided by each stage's
// parallel speed-up where it applies).
struct RooflineTerms {
  double compute = 0;         // arithmetic instructions per core
  double load_issue = 0;      // load and store instructions per core
  double l1_fill = 0;         // bytes into L1 per core
  double l2_fill = 0;         // bytes into L2 per core
  double dram = 0;            // bytes from DRAM
  double pack_copy = 0;       // bytes the packs copy per core: passes of their own, read and written at L2 speed
  double loop_overhead = 0;   // loop iterations per core
  double tlb = 0;             // TLB misses per core
  double task_launches = 0;   // parallel tasks started
  double parallel_loops = 0;  // parallel loops entered
  double realizations = 0;    // compute_at realizations
};

// Seconds of one call on `cores` cores.
double roofline_seconds(const RooflineTerms& terms, const AnalyticalRates& rates, int cores);

}  // namespace ktune::cost_model
