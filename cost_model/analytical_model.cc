#include "cost_model/analytical_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "common/check.h"
#include "common/error.h"
#include "cost_model/features.h"
#include "cost_model/gpu_roofline.h"
#include "cost_model/model_blob.h"

namespace ktune::cost_model {
namespace {

// The features the estimate reads, by name; index_ holds their positions in this order.
enum Input {
  kCompute, kLoadIssue, kL1Fill, kL2Fill, kDram, kPackCopy, kLoopOverhead, kTlb, kTaskLaunches, kParallelLoops,
  kRealizations,
  // CUDA targets (gpu_roofline.h).
  kOps, kLoads, kStores, kDramBytes, kStoreBytes, kKernels, kWarpUtilization, kOccupancy, kWaves, kCoalesced,
  kCount
};
const char* const kNames[kCount] = {"cost.compute",       "cost.load_issue",    "cost.l1_fill",
                                    "cost.l2_fill",       "cost.dram",          "cost.pack_copy",
                                    "cost.loop_overhead", "cost.tlb",
                                    "cost.task_launches", "cost.parallel_loops", "allocation.realizations",
                                    "arith.ops",          "arith.loads",        "arith.stores",
                                    "memory.dram_traffic_bytes", "memory.store_bytes", "gpu.kernels",
                                    "gpu.warp_utilization", "gpu.occupancy",    "gpu.waves",
                                    "gpu.coalesced"};

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
  if (target_.is_gpu()) {
    GpuTerms g;
    g.ops = f(kOps);
    g.loads_and_stores = f(kLoads) + f(kStores);
    g.dram_bytes = f(kDramBytes) + f(kStoreBytes);
    g.kernels = f(kKernels);
    g.warp_utilization = f(kWarpUtilization);
    g.occupancy = f(kOccupancy);
    g.waves = f(kWaves);
    g.coalesced = f(kCoalesced);
    return gpu_roofline_seconds(g, target_);
  }
  RooflineTerms t;
  t.compute = f(kCompute);
  t.load_issue = f(kLoadIssue);
  t.l1_fill = f(kL1Fill);
  t.l2_fill = f(kL2Fill);
  t.dram = f(kDram);
  t.pack_copy = f(kPackCopy);
  t.loop_overhead = f(kLoopOverhead);
  t.tlb = f(kTlb);
  t.task_launches = f(kTaskLaunches);
  t.parallel_loops = f(kParallelLoops);
  t.realizations = f(kRealizations);
  return roofline_seconds(t, rates_, target_.cores);
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
  const nlohmann::json j = {{"vector_lanes", target_.vector_lanes},
                            {"cores", target_.cores},
                            {"l1_bytes", target_.l1_bytes},
                            {"l2_bytes", target_.l2_bytes},
                            {"llc_bytes", target_.llc_bytes},
                            {"halide_target", target_.halide_target},
                            {"kind", targets::to_string(target_.kind)},
                            {"sm_count", target_.sm_count},
                            {"memory_gbps", target_.memory_gbps}};
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
    // Absent in blobs written before GPU targets had their own estimate.
    t.kind = targets::parse_device_kind(j.value("kind", std::string("cpu"))).value_or(targets::DeviceKind::kCpu);
    t.sm_count = j.value("sm_count", 0);
    t.memory_gbps = j.value("memory_gbps", 0.0);
    target_ = t;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("analytical model blob: corrupt payload (") + e.what() + ")");
  }
}

}  // namespace ktune::cost_model
