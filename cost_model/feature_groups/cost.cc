// CostFeatures: the terms of a roofline estimate computed stage by stage (each stage with its
// own vector width and parallelism) and summed, raw and per computed point.
#include <algorithm>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"
#include "cost_model/roofline.h"

namespace ktune::cost_model {

CostFeatures CostFeatures::compute_from(const internal::FeatureInputs& in) {
  CostFeatures f;
  double compute = 0, load = 0, l1 = 0, l2 = 0, dram = 0, overhead = 0, tlb = 0, launches = 0, loops = 0;
  double serial = 0, all = 0, bottleneck = 0;
  for (size_t i = 0; i < in.model.stages.size(); ++i) {
    const internal::StageMetrics& m = in.metrics[i];
    const double c = m.ops / m.lanes / m.speedup;
    const double l = m.load_instructions / m.speedup;
    compute += c;
    load += l;
    l1 += m.l1_traffic / m.speedup;
    l2 += m.l2_traffic / m.speedup;
    dram += m.dram_traffic;
    overhead += m.loop_overhead / m.speedup;
    tlb += m.tlb_misses / m.speedup;
    launches += m.launches;
    if (m.launches > 0) loops += static_cast<double>(in.model.stages[i].realizations);
    all += m.ops + m.loads;
    if (m.speedup <= 1) serial += m.ops + m.loads;
    bottleneck += std::max({c, l, m.l1_traffic / internal::kLineBytes / m.speedup});
  }
  f.compute = static_cast<float>(compute);
  f.load_issue = static_cast<float>(load);
  f.l1_fill = static_cast<float>(l1);
  f.l2_fill = static_cast<float>(l2);
  f.dram = static_cast<float>(dram);
  f.loop_overhead = static_cast<float>(overhead);
  f.tlb = static_cast<float>(tlb);
  f.task_launches = static_cast<float>(launches);
  f.parallel_loops = static_cast<float>(loops);
  f.serial_share = all > 0 ? static_cast<float>(serial / all) : 0.f;
  f.bottleneck = static_cast<float>(bottleneck);
  const double pack_copy = in.model.pack_copied_bytes_per_task;
  f.pack_copy = static_cast<float>(pack_copy);
  const double points = std::max(1.0, in.points_ideal);
  f.compute_per_point = static_cast<float>(compute / points);
  f.load_issue_per_point = static_cast<float>(load / points);
  f.l1_fill_per_point = static_cast<float>(l1 / points);
  f.dram_per_byte = in.compulsory_bytes > 0 ? static_cast<float>(dram / in.compulsory_bytes) : 0.f;
  f.overhead_per_point = static_cast<float>((overhead + launches) / points);
  f.bottleneck_per_point = static_cast<float>(bottleneck / points);
  f.pack_copy_per_point = static_cast<float>(pack_copy / points);
  RooflineTerms t;
  t.compute = compute;
  t.load_issue = load;
  t.l1_fill = l1;
  t.l2_fill = l2;
  t.dram = dram;
  t.pack_copy = pack_copy;
  t.loop_overhead = overhead;
  t.tlb = tlb;
  t.task_launches = launches;
  t.parallel_loops = loops;
  for (const internal::FuncModel& fm : in.model.funcs) {
    if (fm.kind == scheduler::ComputeLocation::Kind::kAt) t.realizations += static_cast<double>(fm.realizations);
  }
  const double seconds = roofline_seconds(t, AnalyticalRates{}, in.analysis.target.cores);
  f.estimate_seconds = static_cast<float>(seconds);
  f.estimate_ns_per_point = static_cast<float>(seconds * 1e9 / points);
  return f;
}

std::vector<std::string> CostFeatures::names() {
  return {"compute",           "load_issue",           "l1_fill",           "l2_fill",
          "dram",              "loop_overhead",        "tlb",               "task_launches",     "parallel_loops",
          "serial_share",      "pack_copy",            "bottleneck",        "compute_per_point",
          "load_issue_per_point", "l1_fill_per_point", "dram_per_byte",     "overhead_per_point",
          "bottleneck_per_point", "pack_copy_per_point", "estimate_seconds", "estimate_ns_per_point"};
}

void CostFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {compute, load_issue, l1_fill, l2_fill, dram, loop_overhead, tlb, task_launches, parallel_loops,
                         serial_share, pack_copy, bottleneck, compute_per_point, load_issue_per_point,
                         l1_fill_per_point, dram_per_byte, overhead_per_point, bottleneck_per_point,
                         pack_copy_per_point, estimate_seconds, estimate_ns_per_point});
}

}  // namespace ktune::cost_model
