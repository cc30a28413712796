#include "cost_model/analytical_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "common/check.h"
#include "common/error.h"
#include "cost_model/features.h"
#include "cost_model/model_blob.h"

namespace ktune::cost_model {
namespace {

// The features the estimate reads, by name; index_ holds their positions in this order.
enum Input {
  kCompute, kLoadIssue, kL1Fill, kL2Fill, kDram, kLoopOverhead, kTaskLaunches, kParallelLoops, kRealizations, kCount
};
const char* const kNames[kCount] = {"cost.compute",       "cost.load_issue",    "cost.l1_fill",
                                    "cost.l2_fill",       "cost.dram",          "cost.loop_overhead",
                                    "cost.task_launches", "cost.parallel_loops", "allocation.realizations"};

}  // namespace

AnalyticalModel::AnalyticalModel(scheduler::TargetInfo target, AnalyticalRates rates)
    : target_(std::move(target)), rates_(rates) {
  const std::vector<std::string> names = feature_names();
  for (const char* n : kNames) {
    const auto it = std::find(names.begin(), names.end(), n);
    KTUNE_CHECK(it != names.end()) << "feature " << n << " is missing";
    index_.push_back(static_cast<int>(it - names.begin()));
  }
}

double AnalyticalModel::estimate_seconds(const std::vector<float>& row) const {
  auto f = [&](Input i) { return static_cast<double>(row[index_[i]]); };
  const double hz = rates_.cycles_per_second;
  const double core = std::max(f(kCompute) / rates_.instructions_per_cycle, f(kLoadIssue) / rates_.loads_per_cycle) / hz;
  const double caches = std::max(f(kL1Fill) / rates_.l1_bytes_per_second, f(kL2Fill) / rates_.l2_bytes_per_second);
  const double dram = f(kDram) / rates_.dram_bytes_per_second;
  const double overheads = f(kLoopOverhead) * rates_.loop_iteration_cycles / hz + f(kTaskLaunches) * rates_.task_seconds / std::max(1, target_.cores) +
                           f(kParallelLoops) * rates_.parallel_loop_seconds +
                           f(kRealizations) * rates_.realization_seconds;
  return std::max({core, caches, dram}) + overheads + 1e-9;
}

std::vector<float> AnalyticalModel::predict(const std::vector<std::vector<float>>& batch) const {
  std::vector<float> scores;
  scores.reserve(batch.size());
  for (const std::vector<float>& row : batch) {
    KTUNE_CHECK(static_cast<int>(row.size()) == feature_count()) << "row of " << row.size() << " features";
    scores.push_back(static_cast<float>(-std::log(estimate_seconds(row))));
  }
  return scores;
}

std::vector<uint8_t> AnalyticalModel::save() const {
  const nlohmann::json j = {{"vector_lanes", target_.vector_lanes}, {"cores", target_.cores},
                            {"l1_bytes", target_.l1_bytes},         {"l2_bytes", target_.l2_bytes},
                            {"llc_bytes", target_.llc_bytes},       {"halide_target", target_.halide_target}};
  const std::string text = j.dump();
  return wrap_model(kind(), std::vector<uint8_t>(text.begin(), text.end()));
}

void AnalyticalModel::load(const std::vector<uint8_t>& blob) {
  const std::vector<uint8_t> payload = unwrap_model(blob, kind());
  try {
    const nlohmann::json j = nlohmann::json::parse(payload.begin(), payload.end());
    scheduler::TargetInfo t;
    t.vector_lanes = j.at("vector_lanes").get<int>();
    t.cores = j.at("cores").get<int>();
    t.l1_bytes = j.at("l1_bytes").get<int64_t>();
    t.l2_bytes = j.at("l2_bytes").get<int64_t>();
    t.llc_bytes = j.at("llc_bytes").get<int64_t>();
    t.halide_target = j.at("halide_target").get<std::string>();
    target_ = t;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("analytical model blob: corrupt payload (") + e.what() + ")");
  }
}

}  // namespace ktune::cost_model
