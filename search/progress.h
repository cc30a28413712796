// Progress of a tuning run. On a terminal: a live block redrawn after every measurement
// (elapsed / budget and ETA; per subgraph its trials, best time and speed-up over its first
// measured schedule). Off a terminal: one plain line per round, with the ETA. Always, when a path is
// given: a JSON-lines log with one object per round.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ktune::search {

// One subgraph's line.
struct TaskLine {
  std::string name;
  int trials = 0;            // measured schedules, this run and earlier ones
  double best_ns = -1;       // best median so far; -1 when none
  double first_ns = -1;      // the first median this run measured; -1 when none
};

// One round, as logged.
struct RoundRecord {
  double elapsed_s = 0;
  std::string task;          // subgraph name
  std::string workload_key;
  int round = 0;             // the task's round number in this run
  int measured = 0;          // candidates measured this round
  int ok = 0;                // of which ok
  double round_best_ns = -1; // best ok median of the round; -1 when none
  double best_ns = -1;       // the task's best so far
  int trials = 0;            // the task's trials so far
  std::string model;         // cost model kind used to pick the round's candidates
  double search_s = 0;       // proposing the round's candidates (the search and its model)
  double build_s = 0;        // its candidates' builds, summed (several build at a time)
  double run_s = 0;          // its candidates' isolated runs, summed (one runs at a time)
};

class Progress {
 public:
  // `terminal`: draw the live block (stderr is a terminal); `log_path` may be empty.
  Progress(bool terminal, const std::string& log_path, std::optional<double> budget_s, std::optional<int> budget_trials);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // After each measurement: redraws the block on a terminal.
  void update(double elapsed_s, int trials_run, const std::vector<TaskLine>& tasks);
  // After each round: a plain line off a terminal, and a log record.
  void round(const RoundRecord& record);
  // A note (model retrained, a candidate that failed loudly): printed above the block.
  void note(const std::string& text);

 private:
  void clear_block();

  bool terminal_;
  FILE* log_ = nullptr;
  std::optional<double> budget_s_;
  std::optional<int> budget_trials_;
  int drawn_lines_ = 0;  // lines of the live block currently on screen
  int trials_run_ = 0;   // trials of this run at the last update
};

// Seconds until the run ends: what is left of a wall-clock budget, or of a trial budget at
// the rate so far, whichever ends first; nullopt without a budget (or before any trial of a
// trials-only budget).
std::optional<double> eta_seconds(double elapsed_s, int trials_run, std::optional<double> budget_s,
                                  std::optional<int> budget_trials);


}  // namespace ktune::search
