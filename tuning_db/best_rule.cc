#include "tuning_db/best_rule.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace ktune::tuning_db {

double tie_band_ns(const Candidate& candidate) {
  return std::clamp(candidate.spread_ns, kRelativeTieBand * candidate.median_ns,
                    kMaxRelativeTieBand * candidate.median_ns);
}

bool clearly_faster(const Candidate& challenger, const Candidate& incumbent) {
  return challenger.median_ns + tie_band_ns(challenger) <
         incumbent.median_ns - tie_band_ns(incumbent);
}

std::vector<Candidate> collapse_timings(const std::vector<OkTiming>& timings) {
  std::vector<Candidate> candidates;
  std::vector<int64_t> representative_at;     // created_at of each candidate's representative
  std::unordered_map<int64_t, size_t> index;  // schedule id -> position in candidates
  index.reserve(timings.size());
  for (const OkTiming& t : timings) {
    auto [it, inserted] = index.emplace(t.schedule_id, candidates.size());
    if (inserted) {
      candidates.push_back({t.schedule_id, t.schedule_hash, t.measurement_id, t.median_ns,
                            t.spread_ns, t.created_at_ms, t.measurement_id, 1});
      representative_at.push_back(t.created_at_ms);
      continue;
    }
    Candidate& c = candidates[it->second];
    int64_t& rep_at = representative_at[it->second];
    ++c.measurements;
    if (std::tie(t.created_at_ms, t.measurement_id) <
        std::tie(c.first_seen_ms, c.first_measurement_id)) {
      c.first_seen_ms = t.created_at_ms;
      c.first_measurement_id = t.measurement_id;
    }
    // The representative is the fastest timing; exact ties go to the quieter, then older one.
    if (std::tie(t.median_ns, t.spread_ns, t.created_at_ms, t.measurement_id) <
        std::tie(c.median_ns, c.spread_ns, rep_at, c.measurement_id)) {
      c.measurement_id = t.measurement_id;
      c.median_ns = t.median_ns;
      c.spread_ns = t.spread_ns;
      rep_at = t.created_at_ms;
    }
  }
  return candidates;
}

std::vector<Candidate> rank_candidates(std::vector<Candidate> candidates) {
  if (candidates.empty()) return candidates;
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.first_seen_ms, a.schedule_hash) < std::tie(b.first_seen_ms, b.schedule_hash);
  });
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (clearly_faster(candidates[i], candidates[best])) best = i;
  }
  std::swap(candidates[0], candidates[best]);
  std::sort(candidates.begin() + 1, candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.median_ns, a.schedule_hash) < std::tie(b.median_ns, b.schedule_hash);
  });
  return candidates;
}

}  // namespace ktune::tuning_db
