// How long a tuning run may go on: a wall-clock budget ("8h", "90m", "1h30m", "45s") or a
// number of measured trials, or both (whichever ends first).
#pragma once

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

// Parses "8h", "90m", "1h30m", "45s" or a plain number of seconds, up to kMaxBudgetSeconds.
// Throws ktune::UserError naming `flag` for anything else.
double parse_duration_seconds(const std::string& text, const std::string& flag);

}  // namespace ktune::search
