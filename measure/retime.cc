#include "measure/retime.h"

#include <algorithm>

#include "common/check.h"
#include "measure/runner.h"
#include "measure/timing_protocol.h"

namespace ktune::measure {

MeasureResult combine_rounds(const std::vector<MeasureResult>& runs) {
  KTUNE_CHECK(!runs.empty()) << "nothing to combine";
  for (const MeasureResult& r : runs) {
    if (!r.ok()) return r;
  }
  MeasureResult out = runs.front();
  std::vector<double> medians, spreads;
  out.repeats = 0;
  out.run_wall_ms = 0;
  for (const MeasureResult& r : runs) {
    medians.push_back(r.median_ns);
    spreads.push_back(r.spread_ns);
    out.min_ns = std::min(out.min_ns, r.min_ns);
    out.max_error = std::max(out.max_error, r.max_error);
    out.repeats += r.repeats;
    out.run_wall_ms += r.run_wall_ms;
  }
  const TimingSummary of_medians = summarize(medians);
  std::sort(spreads.begin(), spreads.end());
  out.median_ns = of_medians.median_ns;
  out.spread_ns = std::max(of_medians.spread_ns, quantile(spreads, 0.5));
  return out;
}

RetimeOutcome retime_top(const std::vector<MeasureResult>& first, const std::vector<std::string>& hashes,
                         const std::function<MeasureResult(size_t)>& measure, const RetimeOptions& options) {
  RetimeOutcome out;
  out.first_winner = pick_winner(first, hashes, options.band);
  std::vector<size_t> order = rank_by_median(first, hashes);
  if (order.size() > static_cast<size_t>(std::max(1, options.top))) order.resize(std::max(1, options.top));
  // The first winner may sit outside the top by median (a tie won on its hash): keep it.
  if (out.first_winner && std::find(order.begin(), order.end(), *out.first_winner) == order.end()) {
    order.back() = *out.first_winner;
  }
  out.contenders = order;
  if (order.empty()) return out;
  for (int r = 0; r < std::max(1, options.rounds); ++r) {
    std::vector<MeasureResult> round;
    for (size_t i : order) round.push_back(measure(i));
    out.rounds.push_back(std::move(round));
  }
  std::vector<std::string> contender_hashes;
  for (size_t c = 0; c < order.size(); ++c) {
    std::vector<MeasureResult> runs;
    for (const auto& round : out.rounds) runs.push_back(round[c]);
    out.combined.push_back(combine_rounds(runs));
    contender_hashes.push_back(hashes[order[c]]);
  }
  if (const std::optional<size_t> w = pick_winner(out.combined, contender_hashes, options.band)) {
    out.winner = order[*w];
  }
  return out;
}

RetimeOutcome retime_top(const std::vector<BuiltCandidate>& batch, const std::vector<MeasureResult>& first,
                         Runner& runner, const RetimeOptions& options) {
  KTUNE_CHECK(batch.size() == first.size()) << batch.size() << " candidates but " << first.size() << " results";
  std::vector<std::string> hashes;
  for (const BuiltCandidate& b : batch) hashes.push_back(b.candidate.schedule_hash);
  return retime_top(first, hashes, [&](size_t i) { return runner.run(batch[i]); }, options);
}

}  // namespace ktune::measure
