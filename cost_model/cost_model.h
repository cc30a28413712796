// CostModel: ranks candidate schedules of one workload from their feature vectors, so the
// search measures only the promising ones. Always called with batches. Scores are only
// comparable within one workload; higher means predicted faster. Implementations:
// AnalyticalModel (roofline-style, needs no training: the cold start) and XgboostModel
// (learned from the database's measurements).
//
//   std::unique_ptr<CostModel> model = ...;
//   std::vector<float> scores = model->predict(extractor.extract(candidates));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::cost_model {

// One measured schedule.
struct TrainingSample {
  std::vector<float> features;  // feature_count() values (features.h)
  double runtime_ns = 0;        // measured median time per call, > 0
  std::string group;            // workload key: pairs are only compared within a group
};

class CostModel {
 public:
  virtual ~CostModel();

  // Short name stored with saved models, e.g. "xgboost-rank" or "analytical".
  virtual std::string kind() const = 0;
  // One score per row; higher = predicted faster. Rows must have feature_count() values.
  virtual std::vector<float> predict(const std::vector<std::vector<float>>& batch) const = 0;
  // Fits the model to `samples` (replacing what it knew). Throws ktune::UserError when the
  // samples cannot train it (no group with two distinct runtimes, wrong row length).
  virtual void train(const std::vector<TrainingSample>& samples) = 0;
  // True when predict() reflects training (always true for models that need none).
  virtual bool trained() const = 0;
  // The model as bytes, with kFeatureVersion and kind() in a header (model_blob.h).
  virtual std::vector<uint8_t> save() const = 0;
  // Replaces the model with a saved one. Throws ktune::UserError for a blob of another
  // kind or feature version, or a corrupt one.
  virtual void load(const std::vector<uint8_t>& blob) = 0;
};

}  // namespace ktune::cost_model
