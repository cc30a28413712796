// Entry points: evaluate_within_workloads() and evaluate_across_workloads() both pick
// training and test rows, then score() runs the three rankers on the test rows.
#include "cost_model/evaluation.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "scheduler/rng.h"

namespace ktune::cost_model {
namespace {

std::vector<TrainingSample> pick(const Dataset& data, const std::vector<size_t>& rows) {
  std::vector<TrainingSample> out;
  out.reserve(rows.size());
  for (size_t i : rows) out.push_back(data.samples[i]);
  return out;
}

// Per-workload figures of the three rankers on `test` rows, appended to `out`; pairs within
// `tie_ratio` of each other are skipped.
void score(const Dataset& data, const XgboostModel& model, const std::vector<size_t>& test, double tie_ratio,
           scheduler::Rng& rng, std::vector<WorkloadEvaluation>& out) {
  std::vector<std::vector<float>> rows;
  for (size_t i : test) rows.push_back(data.samples[i].features);
  const std::vector<float> predicted = model.predict(rows);
  std::map<std::string, std::vector<size_t>> by_group;  // positions in `test`
  for (size_t k = 0; k < test.size(); ++k) by_group[data.samples[test[k]].group].push_back(k);
  for (const auto& [group, positions] : by_group) {
    std::vector<float> ms, as, rs;
    std::vector<double> runtimes;
    for (size_t k : positions) {
      ms.push_back(predicted[k]);
      as.push_back(data.analytical_scores[test[k]]);
      rs.push_back(static_cast<float>(rng.below(1 << 24)));
      runtimes.push_back(data.samples[test[k]].runtime_ns);
    }
    out.push_back({group, rank_one_workload(ms, runtimes, tie_ratio), rank_one_workload(as, runtimes, tie_ratio),
                   rank_one_workload(rs, runtimes, tie_ratio)});
  }
}

// Averages of the per-workload figures, which it also sorts by workload key.
void summarize(SplitEvaluation& e) {
  std::sort(e.per_workload.begin(), e.per_workload.end(),
            [](const WorkloadEvaluation& a, const WorkloadEvaluation& b) { return a.group < b.group; });
  std::vector<RankingMetrics> m, a, r;
  for (const WorkloadEvaluation& w : e.per_workload) {
    m.push_back(w.model);
    a.push_back(w.analytical);
    r.push_back(w.random);
  }
  e.model = average(m);
  e.analytical = average(a);
  e.random = average(r);
}

}  // namespace

SplitEvaluation evaluate_within_workloads(const Dataset& data, const XgboostParams& params, double test_fraction,
                                          uint64_t seed, double tie_ratio) {
  SplitEvaluation e;
  e.name = "random split within workloads";
  scheduler::Rng rng(seed);
  std::map<std::string, std::vector<size_t>> by_group;
  for (size_t i = 0; i < data.samples.size(); ++i) by_group[data.samples[i].group].push_back(i);
  std::vector<size_t> train, test;
  for (auto& [group, rows] : by_group) {
    for (size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[rng.below(static_cast<int64_t>(i))]);
    const size_t n_test = rows.size() < 4 ? 0 : std::max<size_t>(2, static_cast<size_t>(rows.size() * test_fraction));
    test.insert(test.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n_test));
    train.insert(train.end(), rows.begin() + static_cast<std::ptrdiff_t>(n_test), rows.end());
  }
  std::sort(train.begin(), train.end());
  std::sort(test.begin(), test.end());
  XgboostModel model(params);
  model.train(pick(data, train));
  score(data, model, test, tie_ratio, rng, e.per_workload);
  summarize(e);
  e.train_samples = static_cast<int>(train.size());
  e.test_samples = static_cast<int>(test.size());
  e.folds = 1;
  return e;
}

SplitEvaluation evaluate_across_workloads(const Dataset& data, const XgboostParams& params, int max_folds,
                                          uint64_t seed, double tie_ratio) {
  SplitEvaluation e;
  e.name = "whole workloads held out";
  std::set<std::string> groups;
  for (const TrainingSample& s : data.samples) groups.insert(s.group);
  if (groups.size() < 2) {
    throw UserError("model evaluation: holding out whole workloads needs at least two workloads, found " +
                    std::to_string(groups.size()));
  }
  const int k = std::max(2, std::min(static_cast<int>(groups.size()), max_folds));
  std::map<std::string, int> fold;
  int next = 0;
  for (const std::string& g : groups) fold[g] = next++ % k;
  scheduler::Rng rng(seed);
  for (int f = 0; f < k; ++f) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < data.samples.size(); ++i) (fold[data.samples[i].group] == f ? test : train).push_back(i);
    if (test.empty() || train.empty()) continue;
    XgboostModel model(params);
    model.train(pick(data, train));
    score(data, model, test, tie_ratio, rng, e.per_workload);
    e.train_samples += static_cast<int>(train.size());
    e.test_samples += static_cast<int>(test.size());
    ++e.folds;
  }
  summarize(e);
  return e;
}

nlohmann::json to_json(const RankingMetrics& m) {
  return {{"pairwise_accuracy", m.pairwise_accuracy}, {"top1_recall", m.top1_recall}, {"top5_recall", m.top5_recall},
          {"spearman", m.spearman}, {"workloads", m.workloads}, {"samples", m.samples}};
}

nlohmann::json to_json(const SplitEvaluation& e) {
  nlohmann::json per = nlohmann::json::array();
  for (const WorkloadEvaluation& w : e.per_workload) {
    per.push_back({{"workload", w.group}, {"model", to_json(w.model)}, {"analytical", to_json(w.analytical)},
                   {"random", to_json(w.random)}});
  }
  return {{"split", e.name},
          {"per_workload", per},
          {"model", to_json(e.model)},
          {"analytical", to_json(e.analytical)},
          {"random", to_json(e.random)},
          {"train_samples", e.train_samples},
          {"test_samples", e.test_samples},
          {"folds", e.folds}};
}

}  // namespace ktune::cost_model
