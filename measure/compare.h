// Noise-aware comparison of measured candidates. Each timing is an interval, its median
// plus or minus a half-width derived from its spread (IQR) with a relative floor; A is
// faster than B only when A's interval lies wholly below B's. Within the band the two
// tie, and ties are broken by the schedule hash, so the same data always picks the same
// winner whatever order the candidates come in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/measure_result.h"

namespace ktune::measure {

struct TieBand {
  // Half-width of a timing interval in units of its IQR: with 0.5 the interval is the
  // 25th..75th percentile range when the samples are symmetric; >= 0.
  double spread_factor = 0.5;
  // Half-width at least this fraction of the median, so that two runs with tiny IQRs
  // that differ by noise between processes still tie; >= 0.
  double min_relative = 0.01;
};

enum class Verdict { kFaster, kSlower, kTie };

// Half-width of `r`'s timing interval in nanoseconds: max(spread_factor * spread_ns,
// min_relative * median_ns). 0 for a result without timings.
double tie_half_width(const MeasureResult& r, const TieBand& band = {});

// How `a` compares with `b`. A timed (ok) result is faster than one that failed; two
// failed results tie; two ok results are compared by their intervals.
Verdict compare_timings(const MeasureResult& a, const MeasureResult& b, const TieBand& band = {});

// Indices of the ok results ordered by (median, schedule hash), fastest first; failed
// results are left out. `hashes[i]` is the schedule hash of `results[i]`.
std::vector<size_t> rank_by_median(const std::vector<MeasureResult>& results, const std::vector<std::string>& hashes);

// The winner: among the ok results that tie with the fastest one (smallest median, then
// smallest hash), the one with the smallest schedule hash. nullopt when none is ok.
std::optional<size_t> pick_winner(const std::vector<MeasureResult>& results, const std::vector<std::string>& hashes,
                                  const TieBand& band = {});

}  // namespace ktune::measure
