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
  kOps, kInstr, kOpsParallel, kLoadsDense, kLoadsBroadcast, kLoadsStrided, kLoadsScalar, kStores,
  kL1Traffic, kL2Traffic, kDramTraffic, kRealizations,
  kTasks0, kLoopIter0, kTasks1, kLoopIter1, kCount
};
const char* const kNames[kCount] = {
    "arith.ops",           "arith.ops_instructions",   "arith.ops_parallel",       "arith.loads_dense",
    "arith.loads_broadcast", "arith.loads_strided",    "arith.loads_scalar",       "arith.stores",
    "memory.l1_traffic_bytes", "memory.l2_traffic_bytes", "memory.dram_traffic_bytes", "allocation.realizations",
    "stage0.loop.tasks",   "stage0.loop.loop_iterations", "stage1.loop.tasks",     "stage1.loop.loop_iterations"};

// Speed-up of `tasks` tasks on `cores` cores (whole rounds of tasks).
double speedup(double tasks, int cores) {
  if (tasks <= 1) return 1;
  return tasks / std::ceil(tasks / std::max(1, cores));
}

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
  const int lanes = std::max(1, target_.vector_lanes);
  const double ops = f(kOps);
  const double parallel_share = ops > 0 ? std::clamp(f(kOpsParallel) / ops, 0.0, 1.0) : 0.0;
  const double sp = speedup(std::max(f(kTasks0), 1.0), target_.cores);
  // Share of the work on one core: serial work, plus parallel work spread over the tasks.
  const double per_core = (1 - parallel_share) + parallel_share / sp;
  const double hz = rates_.cycles_per_second;
  const double arith = f(kInstr) / rates_.instructions_per_cycle / hz;
  const double load_instr = (f(kLoadsDense) + f(kLoadsBroadcast)) / lanes + f(kLoadsStrided) + f(kLoadsScalar) +
                            f(kStores) / lanes;
  const double loads = load_instr / rates_.loads_per_cycle / hz;
  const double l1 = f(kL1Traffic) / rates_.l1_bytes_per_second;
  const double l2 = f(kL2Traffic) / rates_.l2_bytes_per_second;
  const double core_bound = std::max({arith, loads, l1, l2}) * per_core;
  const double dram = f(kDramTraffic) / rates_.dram_bytes_per_second;
  const double loops = (f(kLoopIter0) + f(kLoopIter1)) * rates_.loop_iteration_cycles / hz * per_core;
  auto launched = [](double t) { return t > 1 ? t : 0.0; };  // a serial stage starts no tasks
  const double tasks = (launched(f(kTasks0)) + launched(f(kTasks1))) * rates_.task_seconds / std::max(1, target_.cores);
  const double allocs = f(kRealizations) * rates_.realization_seconds * per_core;
  return std::max(core_bound, dram) + loops + tasks + allocs + 1e-9;
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
