// Entry points: feature_names() and feature_count() describe the vector and assemble() writes
// it, all three from the one table of groups below, so their order cannot drift apart;
// extract_features() is the one-schedule path.
#include "cost_model/features.h"

#include "common/check.h"
#include "cost_model/extractor.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {
namespace {

// One block of the vector: a group of features, repeated `copies` times (per stage, per
// buffer) under numbered prefixes when copies > 1.
struct FeatureGroupRow {
  const char* prefix;                                                // "arith", or "stage" for stage0, stage1, ...
  int copies;                                                        // blocks of this group
  int count;                                                         // features per block
  std::vector<std::string> (*names)();                               // the block's names
  void (*append)(const internal::FeatureInputs&, std::vector<float>&);  // every block, in order
};

// The vector, in order. Adding a group is one row here (and its struct in features.h).
const std::vector<FeatureGroupRow>& feature_group_rows() {
  using internal::FeatureInputs;
  using Out = std::vector<float>;
  static const std::vector<FeatureGroupRow> rows = {
      {"pipeline", 1, PipelineFeatures::kCount, PipelineFeatures::names,
       [](const FeatureInputs& in, Out& out) { PipelineFeatures::compute(in).append_to(out); }},
      {"arith", 1, ArithFeatures::kCount, ArithFeatures::names,
       [](const FeatureInputs& in, Out& out) { ArithFeatures::compute(in).append_to(out); }},
      {"memory", 1, MemoryFeatures::kCount, MemoryFeatures::names,
       [](const FeatureInputs& in, Out& out) { MemoryFeatures::compute(in).append_to(out); }},
      {"allocation", 1, AllocationFeatures::kCount, AllocationFeatures::names,
       [](const FeatureInputs& in, Out& out) { AllocationFeatures::compute(in).append_to(out); }},
      {"cost", 1, CostFeatures::kCount, CostFeatures::names,
       [](const FeatureInputs& in, Out& out) { CostFeatures::compute_from(in).append_to(out); }},
      {"stage", kFeatureStages, StageFeatures::kCount, StageFeatures::names,
       [](const FeatureInputs& in, Out& out) {
         for (int s = 0; s < kFeatureStages; ++s) StageFeatures::compute(in, s).append_to(out);
       }},
      {"buffer", kFeatureBuffers, AccessFeatures::kCount, AccessFeatures::names,
       [](const FeatureInputs& in, Out& out) {
         for (const AccessFeatures& a : AccessFeatures::compute(in, kFeatureBuffers)) a.append_to(out);
       }},
      {"gpu", 1, GpuFeatures::kCount, GpuFeatures::names,
       [](const FeatureInputs& in, Out& out) { GpuFeatures::compute(in).append_to(out); }},
  };
  return rows;
}

}  // namespace

std::vector<std::string> feature_names() {
  std::vector<std::string> out;
  for (const FeatureGroupRow& g : feature_group_rows()) {
    for (int c = 0; c < g.copies; ++c) {
      const std::string prefix = g.copies == 1 ? g.prefix : g.prefix + std::to_string(c);
      for (const std::string& n : g.names()) out.push_back(prefix + "." + n);
    }
  }
  return out;
}

int feature_count() {
  int n = 0;
  for (const FeatureGroupRow& g : feature_group_rows()) n += g.copies * g.count;
  return n;
}

namespace internal {

std::vector<float> assemble(const FeatureInputs& in) {
  std::vector<float> out;
  out.reserve(feature_count());
  for (const FeatureGroupRow& g : feature_group_rows()) {
    const size_t before = out.size();
    g.append(in, out);
    KTUNE_CHECK(out.size() - before == static_cast<size_t>(g.copies * g.count))
        << "feature group " << g.prefix << " wrote " << out.size() - before << " values, expected "
        << g.copies * g.count;
  }
  return out;
}

}  // namespace internal

std::vector<float> extract_features(const scheduler::Analysis& analysis, const scheduler::Schedule& schedule) {
  const FeatureExtractor extractor(analysis);
  return extractor.extract_one(schedule);
}

}  // namespace ktune::cost_model
