#include "cost_model/roofline.h"

#include <algorithm>

namespace ktune::cost_model {

double roofline_seconds(const RooflineTerms& t, const AnalyticalRates& r, int cores) {
  const double hz = r.cycles_per_second;
  const double core = std::max(t.compute / r.instructions_per_cycle, t.load_issue / r.loads_per_cycle) / hz;
  const double caches = std::max(t.l1_fill / r.l1_bytes_per_second, t.l2_fill / r.l2_bytes_per_second);
  const double dram = t.dram / r.dram_bytes_per_second;
  const double copies = 2 * t.pack_copy / r.l2_bytes_per_second;
  const double overheads = t.loop_overhead * r.loop_iteration_cycles / hz + t.tlb * r.tlb_miss_seconds +
                           t.task_launches * r.task_seconds / std::max(1, cores) +
                           t.parallel_loops * r.parallel_loop_seconds + t.realizations * r.realization_seconds;
  return std::max({core, caches, dram}) + copies + overheads + 1e-9;
}

}  // namespace ktune::cost_model
