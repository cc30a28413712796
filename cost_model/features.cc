// Entry points: feature_names() and feature_count() describe the vector; assemble() writes
// it from the groups in that same order; extract_features() is the one-schedule path.
#include "cost_model/features.h"

#include "common/check.h"
#include "cost_model/extractor.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {
namespace {

void add(std::vector<std::string>& out, const std::string& prefix, const std::vector<std::string>& names) {
  for (const std::string& n : names) out.push_back(prefix + "." + n);
}

}  // namespace

std::vector<std::string> feature_names() {
  std::vector<std::string> n;
  add(n, "pipeline", PipelineFeatures::names());
  add(n, "arith", ArithFeatures::names());
  add(n, "memory", MemoryFeatures::names());
  add(n, "allocation", AllocationFeatures::names());
  add(n, "cost", CostFeatures::names());
  for (int s = 0; s < kFeatureStages; ++s) add(n, "stage" + std::to_string(s), StageFeatures::names());
  for (int b = 0; b < kFeatureBuffers; ++b) add(n, "buffer" + std::to_string(b), AccessFeatures::names());
  add(n, "gpu", GpuFeatures::names());
  return n;
}

int feature_count() {
  return PipelineFeatures::kCount + ArithFeatures::kCount + MemoryFeatures::kCount + AllocationFeatures::kCount +
         CostFeatures::kCount + kFeatureStages * StageFeatures::kCount + kFeatureBuffers * AccessFeatures::kCount + GpuFeatures::kCount;
}

namespace internal {

std::vector<float> assemble(const FeatureInputs& in) {
  std::vector<float> out;
  out.reserve(feature_count());
  PipelineFeatures::compute(in).append_to(out);
  ArithFeatures::compute(in).append_to(out);
  MemoryFeatures::compute(in).append_to(out);
  AllocationFeatures::compute(in).append_to(out);
  CostFeatures::compute_from(in).append_to(out);
  for (int s = 0; s < kFeatureStages; ++s) StageFeatures::compute(in, s).append_to(out);
  for (const AccessFeatures& a : AccessFeatures::compute(in, kFeatureBuffers)) a.append_to(out);
  GpuFeatures::compute(in).append_to(out);
  KTUNE_CHECK(static_cast<int>(out.size()) == feature_count())
      << "feature groups wrote " << out.size() << " values, expected " << feature_count();
  return out;
}

}  // namespace internal

std::vector<float> extract_features(const scheduler::Analysis& analysis, const scheduler::Schedule& schedule) {
  const FeatureExtractor extractor(analysis);
  return extractor.extract_one(schedule);
}

}  // namespace ktune::cost_model
