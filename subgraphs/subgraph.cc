#include "subgraphs/subgraph.h"

#include "common/hash.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/internal/pipeline_analysis.h"

namespace ktune::subgraphs {

Subgraph::~Subgraph() = default;

double Subgraph::compulsory_bytes() const {
  double bytes = 0;
  for (const TensorInfo& t : inputs_) bytes += 4.0 * static_cast<double>(element_count(t.shape));
  for (const TensorInfo& t : outputs_) bytes += 4.0 * static_cast<double>(element_count(t.shape));
  return bytes;
}

std::vector<Tensor> Subgraph::make_inputs(uint64_t seed) const {
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const auto [lo, hi] = i < input_ranges_.size() ? input_ranges_[i] : std::make_pair(-1.0, 1.0);
    tensors.push_back(random_tensor(inputs_[i].shape, mix64(seed, i), lo, hi));
  }
  return tensors;
}

void Subgraph::finalize() {
  const BuiltPipeline built = build();
  const PipelineAnalysis analysis = analyze_pipeline(built, inputs_, outputs_);
  stages_ = analysis.stages;
  key_.key = stable_hash_hex("ktune-workload-v1\n" + analysis.definitions + analysis.shapes);
  if (key_.family_key.empty()) {
    key_.family_key = stable_hash_hex("ktune-family-v1\n" + analysis.definitions);
  }
  std::string shapes;
  for (const TensorInfo& t : inputs_) shapes += (shapes.empty() ? "" : ";") + t.name + "=" + shape_to_string(t.shape);
  shapes += "->";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    shapes += (i ? ";" : "") + outputs_[i].name + "=" + shape_to_string(outputs_[i].shape);
  }
  key_.shapes = shapes;
}

}  // namespace ktune::subgraphs
