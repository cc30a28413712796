#include "search/progress.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "common/duration_text.h"
#include "common/error.h"

namespace ktune::search {

Progress::Progress(bool terminal, const std::string& log_path, std::optional<double> budget_s,
                   std::optional<int> budget_trials)
    : terminal_(terminal), budget_s_(budget_s), budget_trials_(budget_trials) {
  if (!log_path.empty()) {
    log_ = std::fopen(log_path.c_str(), "a");
    if (!log_) throw UserError(format_user_error(log_path, "", "cannot open the log file for writing"));
  }
}

Progress::~Progress() {
  if (log_) std::fclose(log_);
}

void Progress::clear_block() {
  if (!terminal_ || drawn_lines_ == 0) return;
  std::fprintf(stderr, "\033[%dA", drawn_lines_);
  for (int i = 0; i < drawn_lines_; ++i) std::fprintf(stderr, "\033[2K\n");
  std::fprintf(stderr, "\033[%dA", drawn_lines_);
  drawn_lines_ = 0;
}

std::optional<double> eta_seconds(double elapsed_s, int trials_run, std::optional<double> budget_s,
                                  std::optional<int> budget_trials) {
  std::optional<double> eta;
  if (budget_s) eta = std::max(0.0, *budget_s - elapsed_s);
  if (budget_trials && trials_run > 0) {
    const double by_trials = std::max(0, *budget_trials - trials_run) * elapsed_s / trials_run;
    eta = eta ? std::min(*eta, by_trials) : by_trials;
  }
  return eta;
}

void Progress::update(double elapsed_s, int trials_run, const std::vector<TaskLine>& tasks) {
  trials_run_ = trials_run;
  if (!terminal_) return;
  clear_block();
  std::string head = "ktune tune  " + format_seconds(elapsed_s);
  if (budget_s_) head += " / " + format_seconds(*budget_s_);
  if (const auto eta = eta_seconds(elapsed_s, trials_run, budget_s_, budget_trials_)) {
    head += "  ETA " + format_seconds(*eta);
  }
  head += "  trials " + std::to_string(trials_run);
  if (budget_trials_) head += " / " + std::to_string(*budget_trials_);
  std::fprintf(stderr, "%s\n", head.c_str());
  for (const TaskLine& t : tasks) {
    char speedup[32] = "-";
    if (t.first_ns > 0 && t.best_ns > 0) std::snprintf(speedup, sizeof(speedup), "%.2fx", t.first_ns / t.best_ns);
    std::fprintf(stderr, "  %-18s trials %5d  best %10s  speed-up over first %s\n", t.name.c_str(), t.trials,
                 format_ns(t.best_ns).c_str(), speedup);
  }
  drawn_lines_ = 1 + static_cast<int>(tasks.size());
  std::fflush(stderr);
}

void Progress::round(const RoundRecord& r) {
  if (!terminal_) {
    const auto eta = eta_seconds(r.elapsed_s, trials_run_, budget_s_, budget_trials_);
    std::fprintf(stderr, "[%s] %s round %d: %d measured (%d ok), round best %s, best %s, trials %d%s\n",
                 format_seconds(r.elapsed_s).c_str(), r.task.c_str(), r.round, r.measured, r.ok,
                 format_ns(r.round_best_ns).c_str(), format_ns(r.best_ns).c_str(), r.trials,
                 eta ? (", ETA " + format_seconds(*eta)).c_str() : "");
    std::fflush(stderr);
  }
  if (log_) {
    nlohmann::json j = {{"elapsed_s", r.elapsed_s}, {"task", r.task},   {"workload_key", r.workload_key},
                        {"round", r.round},         {"measured", r.measured}, {"ok", r.ok},
                        {"round_best_ns", r.round_best_ns}, {"best_ns", r.best_ns}, {"trials", r.trials},
                        {"model", r.model}, {"search_s", r.search_s}, {"build_s", r.build_s},
                        {"run_s", r.run_s}};
    std::fprintf(log_, "%s\n", j.dump().c_str());
    std::fflush(log_);
  }
}

void Progress::note(const std::string& text) {
  clear_block();
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

}  // namespace ktune::search
