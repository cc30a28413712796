#include "cost_model/xgboost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "common/error.h"
#include "cost_model/features.h"
#include "cost_model/model_blob.h"

namespace ktune::cost_model {
namespace {

// XGBoost failures are internal errors (the inputs were checked before).
void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + what + ": " + XGBGetLastError());
}

struct DMatrixDeleter {
  void operator()(void* m) const { XGDMatrixFree(m); }
};
using DMatrix = std::unique_ptr<void, DMatrixDeleter>;

DMatrix make_matrix(const std::vector<float>& data, size_t rows, size_t cols) {
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(data.data(), rows, cols, NAN, &h), "XGDMatrixCreateFromMat");
  return DMatrix(h);
}

}  // namespace

void XgboostModel::BoosterDeleter::operator()(void* booster) const { XGBoosterFree(booster); }

XgboostModel::XgboostModel(XgboostParams params) : params_(std::move(params)) {}

XgboostModel::~XgboostModel() = default;

void XgboostModel::set_params(void* b, bool training) const {
  check(XGBoosterSetParam(b, "nthread", std::to_string(params_.nthread).c_str()), "nthread");
  check(XGBoosterSetParam(b, "verbosity", "0"), "verbosity");
  if (!training) return;
  auto set = [&](const char* k, const std::string& v) { check(XGBoosterSetParam(b, k, v.c_str()), k); };
  set("objective", params_.objective);
  set("tree_method", "hist");
  set("max_depth", std::to_string(params_.max_depth));
  set("eta", std::to_string(params_.eta));
  set("min_child_weight", std::to_string(params_.min_child_weight));
  set("subsample", std::to_string(params_.subsample));
  set("colsample_bytree", std::to_string(params_.colsample_bytree));
  set("max_bin", std::to_string(params_.max_bin));
  set("seed", std::to_string(params_.seed));
}

// The labels of one workload's rows for the objective: -log(runtime) for rank:pairwise
// (only compared within the group); the same minus its workload mean for regression, so
// that workloads of different sizes share one scale; for rank:ndcg, whose gains need
// non-negative integer relevance, a grade from 0 (slowest) to kNdcgGrades - 1 (fastest) by
// rank in the workload.
std::vector<float> XgboostModel::labels_of(const std::vector<const TrainingSample*>& group) const {
  std::vector<float> labels;
  if (params_.objective == "rank:ndcg") {
    std::vector<size_t> order(group.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return group[a]->runtime_ns > group[b]->runtime_ns; });
    labels.resize(group.size());
    for (size_t r = 0; r < order.size(); ++r) {
      labels[order[r]] = static_cast<float>(r * kNdcgGrades / order.size());
    }
    return labels;
  }
  double mean = 0;
  for (const TrainingSample* s : group) mean += std::log(s->runtime_ns) / static_cast<double>(group.size());
  const bool centered = params_.objective.rfind("reg:", 0) == 0;
  for (const TrainingSample* s : group) {
    labels.push_back(static_cast<float>(-std::log(s->runtime_ns) + (centered ? mean : 0.0)));
  }
  return labels;
}

void XgboostModel::train(const std::vector<TrainingSample>& samples) {
  const int cols = feature_count();
  // Rows grouped by workload, groups in order of first appearance.
  std::map<std::string, int> group_index;
  std::vector<std::vector<const TrainingSample*>> groups;
  for (const TrainingSample& s : samples) {
    if (static_cast<int>(s.features.size()) != cols) {
      throw UserError("cost model training: a sample has " + std::to_string(s.features.size()) + " features, expected " +
                      std::to_string(cols) + " (feature version " + std::to_string(kFeatureVersion) + ")");
    }
    if (!(s.runtime_ns > 0)) throw UserError("cost model training: a sample has runtime " + std::to_string(s.runtime_ns));
    auto [it, added] = group_index.emplace(s.group, static_cast<int>(groups.size()));
    if (added) groups.emplace_back();
    groups[it->second].push_back(&s);
  }
  std::vector<float> data, labels;
  std::vector<unsigned> sizes;
  bool comparable = false;
  for (const auto& g : groups) {
    sizes.push_back(static_cast<unsigned>(g.size()));
    double lo = g.front()->runtime_ns, hi = lo;
    for (const TrainingSample* s : g) {
      data.insert(data.end(), s->features.begin(), s->features.end());
      lo = std::min(lo, s->runtime_ns);
      hi = std::max(hi, s->runtime_ns);
    }
    const std::vector<float> group_labels = labels_of(g);
    labels.insert(labels.end(), group_labels.begin(), group_labels.end());
    comparable |= g.size() >= 2 && hi > lo;
  }
  if (!comparable) {
    throw UserError("cost model training: needs a workload with at least two schedules of different runtimes; found " +
                    std::to_string(samples.size()) + " samples in " + std::to_string(groups.size()) + " workloads");
  }
  DMatrix m = make_matrix(data, labels.size(), static_cast<size_t>(cols));
  check(XGDMatrixSetFloatInfo(m.get(), "label", labels.data(), labels.size()), "label");
  check(XGDMatrixSetUIntInfo(m.get(), "group", sizes.data(), sizes.size()), "group");
  BoosterHandle h = nullptr;
  DMatrixHandle train_set[] = {m.get()};
  check(XGBoosterCreate(train_set, 1, &h), "XGBoosterCreate");
  Booster booster(h);
  set_params(h, true);
  for (int i = 0; i < params_.rounds; ++i) check(XGBoosterUpdateOneIter(h, i, m.get()), "XGBoosterUpdateOneIter");
  std::lock_guard<std::mutex> lock(mutex_);
  booster_ = std::move(booster);
}

std::vector<float> XgboostModel::predict(const std::vector<std::vector<float>>& batch) const {
  std::vector<float> scores(batch.size(), 0.f);
  if (!booster_ || batch.empty()) return scores;
  const int cols = feature_count();
  std::vector<float> data;
  data.reserve(batch.size() * static_cast<size_t>(cols));
  for (const std::vector<float>& row : batch) {
    if (static_cast<int>(row.size()) != cols) {
      throw std::invalid_argument("XgboostModel::predict: row of " + std::to_string(row.size()) + " features, expected " +
                                  std::to_string(cols));
    }
    data.insert(data.end(), row.begin(), row.end());
  }
  DMatrix m = make_matrix(data, batch.size(), static_cast<size_t>(cols));
  std::lock_guard<std::mutex> lock(mutex_);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(XGBoosterPredictFromDMatrix(booster_.get(), m.get(),
                                    R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})",
                                    &shape, &dim, &out),
        "XGBoosterPredictFromDMatrix");
  std::copy(out, out + batch.size(), scores.begin());
  return scores;
}

std::vector<uint8_t> XgboostModel::save() const {
  if (!booster_) throw std::logic_error("XgboostModel::save: the model is not trained");
  std::lock_guard<std::mutex> lock(mutex_);
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(booster_.get(), R"({"format": "ubj"})", &len, &buf), "XGBoosterSaveModelToBuffer");
  return wrap_model(kind(), std::vector<uint8_t>(buf, buf + len));
}

void XgboostModel::load(const std::vector<uint8_t>& blob) {
  const std::vector<uint8_t> payload = unwrap_model(blob, kind());
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), "XGBoosterCreate");
  Booster booster(h);
  if (XGBoosterLoadModelFromBuffer(h, payload.data(), payload.size()) != 0) {
    throw UserError(std::string("xgboost model blob: corrupt payload (") + XGBGetLastError() + ")");
  }
  set_params(h, false);
  std::lock_guard<std::mutex> lock(mutex_);
  booster_ = std::move(booster);
}

}  // namespace ktune::cost_model
