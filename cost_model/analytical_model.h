// AnalyticalModel: a roofline-style estimate of run time from the feature vector, used
// before enough measurements exist to train a learned model (the cold start). The time is
// the slowest of arithmetic, load issue and each cache level's traffic (the CostFeatures,
// already divided by each stage's parallel speed-up), plus loop, task and allocation
// overheads; the score is -log(seconds). It needs no training.
#pragma once

#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "scheduler/target_info.h"

namespace ktune::cost_model {

// Machine rates the estimate assumes; per core unless stated.
struct AnalyticalRates {
  double cycles_per_second = 3.0e9;     // core clock
  double instructions_per_cycle = 2;    // arithmetic vector instructions (two FMA ports)
  double loads_per_cycle = 2;           // load instructions (vector or scalar)
  double l1_bytes_per_second = 100e9;   // L2 -> L1 fill rate
  double l2_bytes_per_second = 40e9;    // LLC -> L2 fill rate
  double dram_bytes_per_second = 15e9;  // DRAM -> LLC, shared by every core
  double loop_iteration_cycles = 1;     // one iteration of a loop that is not unrolled or vectorized
  double task_seconds = 1e-7;           // one parallel task's scheduling, paid by the core that runs it
  double parallel_loop_seconds = 2e-6;  // entering and leaving one parallel loop
  double realization_seconds = 1e-7;    // allocating one compute_at realization
};

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
