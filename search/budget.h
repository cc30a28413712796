// How long a tuning run may go on: a wall-clock budget ("8h", "90m", "1h30m", "45s") or a
// number of measured trials, or both (whichever ends first).
#pragma once

#include <algorithm>
#include <optional>
#include <string>

namespace ktune::search {

struct Budget {
  std::optional<double> seconds;  // wall-clock limit
  std::optional<int> trials;      // measured candidates in this run
  std::string text;               // as the user typed it, for the database's runs table
};

// The longest wall-clock budget a run may be given: 30 days.
inline constexpr double kMaxBudgetSeconds = 30 * 24 * 3600.0;

// The elapsed time (seconds since the run started) at which the next round of a task must
// end: the budget's end, or, while `tasks_without_round` tasks (this one included) still
// wait for their first round, an equal share of the time left, so that one slow task cannot
// spend the budget before the others start. nullopt without a wall-clock budget.
std::optional<double> round_end_s(const Budget& budget, double elapsed_s, int tasks_without_round);

// How long a round keeps starting builds: the candidates left wait for a later round, so
// that a pipeline whose candidates compile slowly is still measured, and modelled, early.
inline constexpr double kRoundStartWindowS = 20;

// The elapsed time after which no candidate of a round ending at `round_end_s` should start
// building: a candidate that typically takes `typical_candidate_s` would not finish in time.
inline double last_start_s(double round_end_s, double typical_candidate_s) {
  return round_end_s - typical_candidate_s;
}

// How long a round's search may take, as a share of the time its candidates take to build
// (never under kMinSearchWindowS): while compiles bound a run, every second spent proposing
// is one not spent measuring. A 32-stage chain's search took 3.6 s per round of candidates
// that built in 5.6 s.
inline constexpr double kSearchShareOfBuilds = 0.25;
inline constexpr double kMinSearchWindowS = 2;

// The search window of a round of `candidates` that typically build in `typical_build_s`
// each, `builders` at a time; none (nullopt) before a build has been timed.
inline std::optional<double> search_window_s(double typical_build_s, int candidates, int builders) {
  if (typical_build_s <= 0) return std::nullopt;
  const double round_build_s = typical_build_s * candidates / std::max(1, builders);
  return std::max(kMinSearchWindowS, kSearchShareOfBuilds * round_build_s);
}

// Parses "8h", "90m", "1h30m", "45s" or a plain number of seconds, up to kMaxBudgetSeconds.
// Throws ktune::UserError naming `flag` for anything else.
double parse_duration_seconds(const std::string& text, const std::string& flag);

}  // namespace ktune::search
