// AnalyticalModel: ranks by the roofline estimate of run time (roofline.h) computed from
// the cost features, for use before enough measurements exist to train a learned model
// (the cold start); on a CUDA target by the GPU estimate (gpu_roofline.h). The score is
// -log(seconds). It needs no training.
#pragma once

#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/roofline.h"
#include "scheduler/target_info.h"

namespace ktune::cost_model {

class AnalyticalModel : public CostModel {
 public:
  explicit AnalyticalModel(scheduler::TargetInfo target, AnalyticalRates rates = {});

  std::string kind() const override { return "analytical"; }
  std::vector<float> predict(const std::vector<std::vector<float>>& batch) const override;
  void train(const std::vector<TrainingSample>& samples) override {}
  bool trained() const override { return true; }
  std::vector<uint8_t> save() const override;
  void load(const std::vector<uint8_t>& blob) override;

  // Estimated seconds of one call of the schedule with features `row`.
  double estimate_seconds(const std::vector<float>& row) const;
  const scheduler::TargetInfo& target() const { return target_; }

 private:
  scheduler::TargetInfo target_;  // cores, lanes and cache sizes of the device
  AnalyticalRates rates_;         // assumed machine rates
  std::vector<int> index_;        // positions of the features it reads (see analytical_model.cc)
};

}  // namespace ktune::cost_model
