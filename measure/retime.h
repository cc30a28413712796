// Confirming a batch's winner: the top few candidates are measured again, interleaved
// (A B C A B C ...), so that a slow phase of a noisy machine hits all of them alike
// instead of the one that happened to run during it. The re-timed results are combined
// per candidate and the winner is picked again with the tie band (compare.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/builder.h"
#include "measure/compare.h"
#include "measure/measure_result.h"

namespace ktune::measure {

class Runner;

struct RetimeOptions {
  // How many of the fastest ok candidates to re-time; >= 1.
  int top = 3;
  // Interleaved rounds; each round measures every contender once with the full protocol.
  int rounds = 3;
  // Tie band of the final pick.
  TieBand band;
};

struct RetimeOutcome {
  // Indices (into the batch) of the re-timed candidates, fastest first by the first
  // measurement; empty when no candidate was ok.
  std::vector<size_t> contenders;
  // rounds[r][c]: round r's result for contenders[c].
  std::vector<std::vector<MeasureResult>> rounds;
  // Per contender, its rounds combined (combine_rounds).
  std::vector<MeasureResult> combined;
  // The winner after re-timing (an index into the batch); nullopt if none stayed ok.
  std::optional<size_t> winner;
  // The winner of the first measurement (pick_winner over the batch).
  std::optional<size_t> first_winner;
  // True when both picks agree.
  bool confirmed() const { return winner.has_value() && winner == first_winner; }
};

// Several measurements of one candidate as one result: the first failure if any run
// failed (a candidate that is only sometimes right must lose); otherwise median_ns is the
// median of the medians, min_ns the smallest minimum, spread_ns the larger of the median
// IQR and the IQR of the medians, repeats their sum.
MeasureResult combine_rounds(const std::vector<MeasureResult>& runs);

// Re-times the top candidates of `first` (one result per batch candidate, `hashes` their
// schedule hashes). `measure(i)` measures batch candidate i once; it is called in the
// order A B C A B C ...
RetimeOutcome retime_top(const std::vector<MeasureResult>& first, const std::vector<std::string>& hashes,
                         const std::function<MeasureResult(size_t)>& measure, const RetimeOptions& options = {});

// retime_top with the Runner measuring `batch[i]` (the batch `first` was measured from).
RetimeOutcome retime_top(const std::vector<BuiltCandidate>& batch, const std::vector<MeasureResult>& first,
                         Runner& runner, const RetimeOptions& options = {});

}  // namespace ktune::measure
