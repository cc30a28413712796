#include "subgraphs/subgraph.h"

#include "common/hash.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/internal/pipeline_analysis.h"

namespace ktune::subgraphs {

Subgraph::~Subgraph() = default;

double Subgraph::compulsory_bytes() const {
  double bytes = 0;
  for (const TensorInfo& t : inputs_) bytes += static_cast<double>(t.byte_count());
  for (const TensorInfo& t : outputs_) bytes += static_cast<double>(t.byte_count());
  return bytes;
}

std::pair<double, double> Subgraph::input_range(size_t input) const {
  return input < input_ranges_.size() ? input_ranges_[input] : default_input_range(inputs_.at(input).dtype);
}

std::vector<Tensor> Subgraph::make_inputs(uint64_t seed) const {
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const auto [lo, hi] = input_range(i);
    tensors.push_back(random_tensor(inputs_[i].shape, mix64(seed, i), lo, hi, inputs_[i].dtype));
  }
  return tensors;
}

void Subgraph::finalize() {
  const BuiltPipeline built = build();
  const PipelineAnalysis analysis = analyze_pipeline(built, inputs_, outputs_, scalars_);
  stages_ = analysis.stages;
  key_.key = stable_hash_hex("ktune-workload-v1\n" + analysis.definitions + analysis.shapes + range_key_text_);
  if (key_.family_key.empty()) {
    key_.family_key = stable_hash_hex("ktune-family-v1\n" + analysis.definitions);
  }
  // "x=[512, 768];w:u8=[768, 2048]->out=[512, 2048]": the type where it is not f32.
  const auto text = [](const TensorInfo& t) {
    return t.name + (t.dtype == DType::kF32 ? "" : ":" + to_string(t.dtype)) + "=" + shape_to_string(t.shape);
  };
  std::string shapes;
  for (const TensorInfo& t : inputs_) shapes += (shapes.empty() ? "" : ";") + text(t);
  shapes += "->";
  for (size_t i = 0; i < outputs_.size(); ++i) shapes += (i ? ";" : "") + text(outputs_[i]);
  key_.shapes = shapes + (range_display_text_.empty() ? "" : " with " + range_display_text_);
}

}  // namespace ktune::subgraphs
