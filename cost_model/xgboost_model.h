// XgboostModel: a learned ranking of schedules, XGBoost gradient-boosted trees trained with
// the rank:pairwise objective, one query group per workload, label -log(runtime) (higher =
// faster), with a fixed thread count and seed so training is reproducible. Saved as UBJ
// inside the ktune model envelope (model_blob.h). Untrained, it predicts zeros and
// trained() is false: the caller decides what to fall back to.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"

namespace ktune::cost_model {

// Training parameters (XGBoost's names in the comments).
struct XgboostParams {
  std::string objective = "rank:pairwise";  // "objective"; "reg:squarederror" (on -log runtime
                                            // centered per workload) and "rank:ndcg" (on grades
                                            // of each workload's runtime order) also work
  int rounds = 150;                 // boosting rounds
  int max_depth = 6;                // "max_depth"
  double eta = 0.1;                 // "eta": learning rate
  double min_child_weight = 1;      // "min_child_weight"
  double subsample = 0.9;           // "subsample": rows per tree
  double colsample_bytree = 0.8;    // "colsample_bytree": features per tree
  int max_bin = 64;                 // "max_bin": histogram bins per feature (3x faster than 256)
  int nthread = 1;                  // "nthread": fixed, since rank:pairwise depends on it; one
                                    // thread because training runs beside compiles and TBB work
  uint64_t seed = 0;                // "seed"
};

class XgboostModel : public CostModel {
 public:
  explicit XgboostModel(XgboostParams params = {});
  ~XgboostModel() override;

  std::string kind() const override { return "xgboost-rank"; }
  std::vector<float> predict(const std::vector<std::vector<float>>& batch) const override;
  void train(const std::vector<TrainingSample>& samples) override;
  bool trained() const override { return booster_ != nullptr; }
  std::vector<uint8_t> save() const override;
  void load(const std::vector<uint8_t>& blob) override;

  const XgboostParams& params() const { return params_; }

 private:
  struct BoosterDeleter {
    void operator()(void* booster) const;
  };
  using Booster = std::unique_ptr<void, BoosterDeleter>;

  void set_params(void* booster, bool training) const;
  std::vector<float> labels_of(const std::vector<const TrainingSample*>& group) const;

  static constexpr size_t kNdcgGrades = 16;  // relevance grades of rank:ndcg labels

  XgboostParams params_;       // how it trains and predicts
  Booster booster_;            // null until trained or loaded
  mutable std::mutex mutex_;   // XGBoost's DMatrix predictions are not thread-safe
};

}  // namespace ktune::cost_model
