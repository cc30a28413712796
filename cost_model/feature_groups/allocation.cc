// AllocationFeatures: the buffers of intermediate Funcs, how often compute_at producers
// are realized, how much they recompute where their tiles overlap, and the rows sliding
// windows keep live.
#include <algorithm>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {

AllocationFeatures AllocationFeatures::compute(const internal::FeatureInputs& in) {
  using Kind = scheduler::ComputeLocation::Kind;
  AllocationFeatures f;
  for (size_t i = 0; i < in.model.funcs.size(); ++i) {
    const internal::FuncModel& fm = in.model.funcs[i];
    const double bytes = static_cast<double>(fm.region_elements() * in.facts.buffers[i].element_bytes);
    if (fm.kind == Kind::kAt) {
      f.realizations += static_cast<float>(fm.realizations);
      f.max_realization_bytes = std::max(f.max_realization_bytes, static_cast<float>(bytes));
      f.compute_at_bytes += static_cast<float>(bytes);
      const double whole = static_cast<double>(in.facts.buffers[i].elements());
      if (whole > 0) {
        const double ratio = static_cast<double>(fm.realizations) * static_cast<double>(fm.region_elements()) / whole;
        f.max_recompute_ratio = std::max(f.max_recompute_ratio, static_cast<float>(ratio));
      }
      if (fm.host_stage >= 0) {
        const internal::StageModel& host = in.model.stages[fm.host_stage];
        bool inside = host.outer_tasks > 1;
        for (int q = fm.host_level; q < host.depth(); ++q) inside |= host.loops[q].parallel;
        if (inside) f.realizations_in_parallel += static_cast<float>(fm.realizations);
      }
      if (fm.window_elements > 0) {
        f.sliding_windows += 1;
        f.window_bytes += static_cast<float>(fm.window_elements * in.facts.buffers[i].element_bytes);
      }
    } else if (fm.kind == Kind::kRoot && !in.analysis.funcs[i].is_output) {
      f.root_bytes += static_cast<float>(bytes);
    }
  }
  double computed = 0;
  for (const internal::StageMetrics& m : in.metrics) computed += m.points;
  f.redundant_points = static_cast<float>(std::max(0.0, computed - in.points_ideal));
  return f;
}

std::vector<std::string> AllocationFeatures::names() {
  return {"realizations",     "max_realization_bytes", "compute_at_bytes",        "root_bytes",
          "redundant_points", "max_recompute_ratio",   "realizations_in_parallel", "sliding_windows",
          "window_bytes"};
}

void AllocationFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {realizations, max_realization_bytes, compute_at_bytes, root_bytes, redundant_points,
                         max_recompute_ratio, realizations_in_parallel, sliding_windows, window_bytes});
}

}  // namespace ktune::cost_model
