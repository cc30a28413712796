#include "cost_model/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "common/check.h"

namespace ktune::cost_model {
namespace {

// Average ranks (1-based) with ties sharing the mean of their positions.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = mean;
    i = j + 1;
  }
  return r;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace

RankingMetrics rank_one_workload(const std::vector<float>& scores, const std::vector<double>& runtimes_ns,
                                 double tie_ratio) {
  KTUNE_CHECK(scores.size() == runtimes_ns.size()) << scores.size() << " scores, " << runtimes_ns.size() << " runtimes";
  RankingMetrics m;
  const size_t n = scores.size();
  m.samples = static_cast<int>(n);
  double right = 0, pairs = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const double a = runtimes_ns[i], b = runtimes_ns[j];
      if (a == b || std::fabs(a - b) <= tie_ratio * std::min(a, b)) continue;
      pairs += 1;
      const bool i_faster = a < b;
      if (scores[i] == scores[j]) {
        right += 0.5;
      } else if ((scores[i] > scores[j]) == i_faster) {
        right += 1;
      }
    }
  }
  if (pairs == 0) return m;
  m.workloads = 1;
  m.pairwise_accuracy = right / pairs;
  const size_t best = static_cast<size_t>(std::min_element(runtimes_ns.begin(), runtimes_ns.end()) - runtimes_ns.begin());
  // Position of the fastest schedule in the score order; ties count against it.
  size_t above = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i != best && scores[i] >= scores[best]) ++above;
  }
  m.top1_recall = above == 0 ? 1 : 0;
  m.top5_recall = above < 5 ? 1 : 0;
  std::vector<double> s(scores.begin(), scores.end()), speed(n);
  for (size_t i = 0; i < n; ++i) speed[i] = -runtimes_ns[i];
  m.spearman = pearson(ranks(s), ranks(speed));
  return m;
}

RankingMetrics average(const std::vector<RankingMetrics>& per_workload) {
  RankingMetrics avg;
  for (const RankingMetrics& m : per_workload) {
    avg.samples += m.samples;
    if (m.workloads == 0) continue;
    avg.workloads += 1;
    avg.pairwise_accuracy += m.pairwise_accuracy;
    avg.top1_recall += m.top1_recall;
    avg.top5_recall += m.top5_recall;
    avg.spearman += m.spearman;
  }
  if (avg.workloads > 0) {
    avg.pairwise_accuracy /= avg.workloads;
    avg.top1_recall /= avg.workloads;
    avg.top5_recall /= avg.workloads;
    avg.spearman /= avg.workloads;
  }
  return avg;
}

RankingMetrics rank_by_group(const std::vector<float>& scores, const std::vector<double>& runtimes_ns,
                             const std::vector<std::string>& groups, double tie_ratio) {
  KTUNE_CHECK(scores.size() == runtimes_ns.size() && scores.size() == groups.size()) << "mismatched columns";
  std::map<std::string, std::pair<std::vector<float>, std::vector<double>>> by;
  for (size_t i = 0; i < scores.size(); ++i) {
    by[groups[i]].first.push_back(scores[i]);
    by[groups[i]].second.push_back(runtimes_ns[i]);
  }
  std::vector<RankingMetrics> each;
  for (const auto& [g, sr] : by) each.push_back(rank_one_workload(sr.first, sr.second, tie_ratio));
  return average(each);
}

}  // namespace ktune::cost_model
