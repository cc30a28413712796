#include "measure/compare.h"

#include <algorithm>
#include <numeric>

#include "common/check.h"

namespace ktune::measure {

double tie_half_width(const MeasureResult& r, const TieBand& band) {
  if (!r.ok()) return 0;
  return std::max(band.spread_factor * std::max(0.0, r.spread_ns), band.min_relative * r.median_ns);
}

Verdict compare_timings(const MeasureResult& a, const MeasureResult& b, const TieBand& band) {
  if (!a.ok() || !b.ok()) {
    if (a.ok()) return Verdict::kFaster;
    if (b.ok()) return Verdict::kSlower;
    return Verdict::kTie;
  }
  const double ha = tie_half_width(a, band);
  const double hb = tie_half_width(b, band);
  if (a.median_ns + ha < b.median_ns - hb) return Verdict::kFaster;
  if (b.median_ns + hb < a.median_ns - ha) return Verdict::kSlower;
  return Verdict::kTie;
}

std::vector<size_t> rank_by_median(const std::vector<MeasureResult>& results, const std::vector<std::string>& hashes) {
  KTUNE_CHECK(results.size() == hashes.size()) << results.size() << " results but " << hashes.size() << " hashes";
  std::vector<size_t> order;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (results[a].median_ns != results[b].median_ns) return results[a].median_ns < results[b].median_ns;
    if (hashes[a] != hashes[b]) return hashes[a] < hashes[b];
    return a < b;
  });
  return order;
}

std::optional<size_t> pick_winner(const std::vector<MeasureResult>& results, const std::vector<std::string>& hashes,
                                  const TieBand& band) {
  const std::vector<size_t> order = rank_by_median(results, hashes);
  if (order.empty()) return std::nullopt;
  const MeasureResult& fastest = results[order.front()];
  size_t winner = order.front();
  for (size_t i : order) {
    if (compare_timings(results[i], fastest, band) == Verdict::kTie && hashes[i] < hashes[winner]) winner = i;
  }
  return winner;
}

}  // namespace ktune::measure
