// MemoryFeatures: bytes moved into each cache level. For a cache of capacity C, the
// outermost loop level whose working set fits in C is loaded once per execution of that
// level; levels further out cannot keep it, so traffic = executions x working set.
#include <algorithm>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {

MemoryFeatures MemoryFeatures::compute(const internal::FeatureInputs& in) {
  MemoryFeatures f;
  const scheduler::TargetInfo& t = in.analysis.target;
  double l1 = 0, l2 = 0, dram = 0, stores = 0, ops = 0, tlb = 0;
  for (size_t i = 0; i < in.metrics.size(); ++i) {
    const internal::StageMetrics& m = in.metrics[i];
    l1 += m.l1_traffic;
    l2 += m.l2_traffic;
    dram += m.dram_traffic;
    tlb += m.tlb_misses;
    stores += m.points * in.facts.buffers[in.model.stages[i].func].element_bytes;
    ops += m.ops;
    const double full = static_cast<double>(m.ws_bytes.back());
    f.max_ws_over_l2 = std::max(f.max_ws_over_l2, static_cast<float>(full / static_cast<double>(t.l2_bytes)));
  }
  f.l1_traffic_bytes = static_cast<float>(l1);
  f.l2_traffic_bytes = static_cast<float>(l2);
  f.dram_traffic_bytes = static_cast<float>(dram);
  f.store_bytes = static_cast<float>(stores);
  f.dram_bytes_per_op = ops > 0 ? static_cast<float>(dram / ops) : 0.f;
  f.tlb_misses = static_cast<float>(tlb);
  return f;
}

std::vector<std::string> MemoryFeatures::names() {
  return {"l1_traffic_bytes", "l2_traffic_bytes", "dram_traffic_bytes",
          "store_bytes",      "dram_bytes_per_op", "max_ws_over_l2",     "tlb_misses"};
}

void MemoryFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(),
             {l1_traffic_bytes, l2_traffic_bytes, dram_traffic_bytes, store_bytes, dram_bytes_per_op, max_ws_over_l2,
              tlb_misses});
}

}  // namespace ktune::cost_model
