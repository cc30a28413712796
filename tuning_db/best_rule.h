// The noise-aware rule that decides which schedule is "best" for a (workload, device), kept
// apart from SQL so that it can be read and tested on its own.
//
// The rule. Each schedule is represented by its fastest ok measurement (lowest median) and
// dated by its first ok measurement. Schedules are visited in the order they were first
// measured (ties in time: smallest hash first); the first is the incumbent. A challenger
// replaces the incumbent only when it is faster beyond both tie bands:
//     challenger.median + band(challenger) < incumbent.median - band(incumbent)
//     band(x) = clamp(x.spread_ns, kRelativeTieBand * x.median_ns,
//                     kMaxRelativeTieBand * x.median_ns)
// so a schedule that is only faster within the measurement noise (at least 1% per side,
// about 2% together) never displaces the incumbent, and the answer never flips to a
// slower schedule. The band is capped at 3% of the median, so a challenger more than
// about 6% faster always wins: on a shared machine the IQR of a kernel's runs is often
// 10-15% of its median, and a band of the whole IQR kept an incumbent against a schedule
// measured 18% faster (the tuner confirms a new best with two more runs before it is
// stored). The result depends only on the data, not on row order or ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::tuning_db {

// Minimum half-width of a timing's tie band, as a fraction of its median.
inline constexpr double kRelativeTieBand = 0.01;
// Maximum half-width of a timing's tie band, as a fraction of its median.
inline constexpr double kMaxRelativeTieBand = 0.03;

// One ok measurement, as the best query reads it.
struct OkTiming {
  int64_t measurement_id = 0;  // local row id
  int64_t schedule_id = 0;     // local schedule id
  std::string schedule_hash;   // schedule identity
  double median_ns = 0;        // median time per call, ns
  double spread_ns = 0;        // timing noise, ns (>= 0)
  int64_t created_at_ms = 0;   // when it was measured
};

// One schedule competing for best.
struct Candidate {
  int64_t schedule_id = 0;           // local schedule id
  std::string schedule_hash;         // schedule identity; breaks ties in time
  int64_t measurement_id = 0;        // its fastest ok measurement
  double median_ns = 0;              // that measurement's median, ns
  double spread_ns = 0;              // that measurement's noise, ns
  int64_t first_seen_ms = 0;         // time of its earliest ok measurement
  int64_t first_measurement_id = 0;  // that earliest ok measurement
  int64_t measurements = 0;          // ok measurements of this schedule
};

// Half-width of a candidate's tie band, ns.
double tie_band_ns(const Candidate& candidate);

// True when `challenger` beats `incumbent` beyond both tie bands.
bool clearly_faster(const Candidate& challenger, const Candidate& incumbent);

// Folds ok timings (any order) into one candidate per schedule.
std::vector<Candidate> collapse_timings(const std::vector<OkTiming>& timings);

// Ranks candidates: the best by the rule first, then the others by median (ties: hash).
std::vector<Candidate> rank_candidates(std::vector<Candidate> candidates);

}  // namespace ktune::tuning_db
