// PipelineFeatures: how the schedule computes the pipeline as a whole.
#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {

PipelineFeatures PipelineFeatures::compute(const internal::FeatureInputs& in) {
  using Kind = scheduler::ComputeLocation::Kind;
  PipelineFeatures f;
  f.funcs = static_cast<float>(in.analysis.funcs.size());
  f.stages_run = static_cast<float>(in.model.stages.size());
  for (const internal::FuncModel& fm : in.model.funcs) {
    f.inlined_funcs += fm.kind == Kind::kInline;
    f.compute_at_funcs += fm.kind == Kind::kAt;
    f.root_funcs += fm.kind == Kind::kRoot;
  }
  f.rfactor_stages = static_cast<float>(in.model.rfactor_stages);
  f.rfactor_at_func = static_cast<float>(in.model.rfactor_at_func);
  f.rfactor_pure_vector = static_cast<float>(in.model.rfactor_pure_vector);
  f.vector_reduce_stages = static_cast<float>(in.model.vector_reduce_stages);
  f.vector_reduce_factor = static_cast<float>(in.model.vector_reduce_factor);
  f.packed_inputs = static_cast<float>(in.model.packed_inputs);
  f.reordered_funcs = static_cast<float>(in.model.reordered_funcs);
  f.packed_bytes = static_cast<float>(in.model.packed_bytes);
  f.pack_copied_bytes = static_cast<float>(in.model.pack_copied_bytes);
  f.pack_recopy_ratio =
      in.model.packed_bytes > 0 ? static_cast<float>(in.model.pack_copied_bytes / in.model.packed_bytes) : 0.f;
  double computed = 0;
  for (const internal::StageMetrics& m : in.metrics) computed += m.points;
  const double ideal = in.points_ideal;
  f.points_computed = static_cast<float>(computed);
  f.points_ideal = static_cast<float>(ideal);
  f.recompute_ratio = ideal > 0 ? static_cast<float>(computed / ideal) : 0.f;
  const double bytes = in.compulsory_bytes;
  f.compulsory_bytes = static_cast<float>(bytes);
  return f;
}

std::vector<std::string> PipelineFeatures::names() {
  return {"funcs",           "stages_run",          "inlined_funcs",   "compute_at_funcs", "root_funcs",
          "rfactor_stages",  "rfactor_at_func",     "rfactor_pure_vector", "vector_reduce_stages",
          "vector_reduce_factor", "packed_inputs", "packed_bytes", "pack_copied_bytes", "pack_recopy_ratio",
          "reordered_funcs", "points_computed",     "points_ideal",    "recompute_ratio",  "compulsory_bytes"};
}

void PipelineFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {funcs, stages_run, inlined_funcs, compute_at_funcs, root_funcs, rfactor_stages,
                         rfactor_at_func, rfactor_pure_vector, vector_reduce_stages, vector_reduce_factor,
                         packed_inputs, packed_bytes, pack_copied_bytes, pack_recopy_ratio, reordered_funcs,
                         points_computed, points_ideal, recompute_ratio, compulsory_bytes});
}

}  // namespace ktune::cost_model
