#include "report/report_series.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "cost_model/ranking_metrics.h"

namespace ktune::report {
namespace {

using tuning_db::MeasurementRecord;
using tuning_db::MeasureStatus;

bool timed_ok(const MeasurementRecord& m) {
  return m.status == MeasureStatus::kOk && m.median_ns.has_value() && *m.median_ns > 0;
}

// 1-based ranks of `values` in the order `before` sorts them; equal values share the mean rank.
template <typename Before>
std::vector<double> ranks_of(const std::vector<double>& values, Before before) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return before(values[a], values[b]); });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = mean_rank;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

std::vector<CurvePoint> tuning_curve(const std::vector<MeasurementRecord>& history) {
  std::vector<CurvePoint> curve;
  std::optional<double> best;
  int64_t tuning_ms = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    const MeasurementRecord& m = history[i];
    // Time between runs (a resumed tuning session, a later `ktune sample`) is not tuning time.
    if (i > 0 && m.run_id == history[i - 1].run_id) {
      tuning_ms += std::max<int64_t>(0, m.created_at_ms - history[i - 1].created_at_ms);
    }
    if (timed_ok(m) && (!best || *m.median_ns < *best)) best = *m.median_ns;
    if (!best) continue;
    curve.push_back({static_cast<int64_t>(i + 1), static_cast<double>(tuning_ms) / 1000.0, *best});
  }
  return curve;
}

std::vector<HistogramBin> log_histogram(const std::vector<MeasurementRecord>& history, int bins) {
  std::vector<double> logs;
  for (const MeasurementRecord& m : history) {
    if (timed_ok(m)) logs.push_back(std::log10(*m.median_ns));
  }
  std::vector<HistogramBin> out;
  if (logs.empty() || bins <= 0) return out;
  const auto [lo_it, hi_it] = std::minmax_element(logs.begin(), logs.end());
  const double lo = *lo_it;
  const double hi = *hi_it;
  if (hi <= lo) {
    out.push_back({std::pow(10.0, lo), std::pow(10.0, lo), static_cast<int64_t>(logs.size())});
    return out;
  }
  const double width = (hi - lo) / bins;
  for (int b = 0; b < bins; ++b) {
    out.push_back({std::pow(10.0, lo + b * width), std::pow(10.0, b + 1 == bins ? hi : lo + (b + 1) * width), 0});
  }
  for (double v : logs) {
    const int b = std::min(bins - 1, static_cast<int>((v - lo) / width));
    ++out[static_cast<size_t>(b)].count;
  }
  return out;
}

std::vector<StatusCount> count_statuses(const std::vector<MeasurementRecord>& history) {
  std::vector<int64_t> counts(tuning_db::measure_status_names().size(), 0);
  for (const MeasurementRecord& m : history) ++counts[static_cast<size_t>(m.status)];
  std::vector<StatusCount> out;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) out.push_back({std::string(tuning_db::measure_status_names()[i]), counts[i]});
  }
  return out;
}

std::vector<MeasurerCount> count_measurers(const std::vector<MeasurementRecord>& history) {
  std::map<std::pair<std::string, int64_t>, int64_t> counts;  // rank -1: no rank
  for (const MeasurementRecord& m : history) ++counts[{m.host, m.rank.value_or(-1)}];
  std::vector<MeasurerCount> out;
  for (const auto& [who, count] : counts) {
    MeasurerCount c{who.first, std::nullopt, count};
    if (who.second >= 0) c.rank = who.second;
    out.push_back(c);
  }
  return out;
}

RankAgreement rank_agreement(const std::vector<MeasurementRecord>& history) {
  std::map<int64_t, std::vector<const MeasurementRecord*>> by_run;
  for (const MeasurementRecord& m : history) {
    if (timed_ok(m) && m.predicted && std::isfinite(*m.predicted)) {
      by_run[m.run_id.value_or(0)].push_back(&m);
    }
  }
  RankAgreement out;
  std::vector<cost_model::RankingMetrics> per_run;
  for (const auto& [run_id, rows] : by_run) {
    if (rows.size() < 2) continue;
    std::vector<double> scores;
    std::vector<double> times;
    for (const MeasurementRecord* m : rows) {
      scores.push_back(*m->predicted);
      times.push_back(*m->median_ns);
    }
    const auto predicted = ranks_of(scores, [](double a, double b) { return a > b; });
    const auto measured = ranks_of(times, [](double a, double b) { return a < b; });
    for (size_t i = 0; i < rows.size(); ++i) out.points.push_back({run_id, predicted[i], measured[i]});
    const std::vector<float> float_scores(scores.begin(), scores.end());
    per_run.push_back(cost_model::rank_one_workload(float_scores, times));
  }
  const cost_model::RankingMetrics mean = cost_model::average(per_run);
  out.runs = mean.workloads;
  out.pairwise_accuracy = mean.pairwise_accuracy;
  out.spearman = mean.spearman;
  return out;
}

}  // namespace ktune::report
