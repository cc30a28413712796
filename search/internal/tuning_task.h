// One subgraph as the tuning run (search/tuner.cc) tunes it: its space, features and
// database state, and the per-task steps of a round: loading its state, proposing
// candidates, counting a result, and giving up when nothing of it ever runs.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/extractor.h"
#include "measure/measure_result.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"
#include "scheduler/space.h"
#include "search/evolutionary_search.h"
#include "search/measurer.h"
#include "search/progress.h"
#include "search/task_scheduler.h"
#include "search/tuner.h"
#include "subgraphs/subgraph.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search::internal {

// One subgraph being tuned.
struct Task {
  std::unique_ptr<subgraphs::Subgraph> subgraph;
  std::unique_ptr<scheduler::Space> space;
  std::unique_ptr<cost_model::FeatureExtractor> features;
  int64_t workload_id = 0;
  std::set<std::string> measured;     // hashes measured on this device, any status, or being measured
  int submitted = 0;                  // candidates handed to the measurer and not collected yet
  std::vector<scheduler::Schedule> seeds;        // database best, heuristic, naive, same family at other shapes
  std::string heuristic_hash;
  // The heuristic's strips at other counts per core (Space::strip_variants), proposed once
  // beside the heuristic: the strip height that balances halo and cores is measured, not guessed.
  std::vector<scheduler::Schedule> strip_variants;
  TaskProgress progress;              // for the scheduler
  TaskSummary summary;
  int failed_streak = 0;              // candidates failed in a row since the last ok one
  std::map<std::string, int> failures;  // messages of that streak, counted
  std::vector<double> build_s;        // build time of each candidate built in this run, seconds
  int ok_stored = 0;                  // schedules with an ok measurement on this device before this run
  std::vector<std::string> family_keys;  // the workload keys of the same algorithm at other shapes
};

// The training samples of `t`'s algorithm (its workload and its other shapes) that a learned
// model saw, given the model's samples per workload key.
int samples_seen_by_model(const Task& t, const std::map<std::string, int>& model_samples);

// What building one candidate of `t` typically takes, in seconds: the median of this run's
// builds, 0 before the first.
double typical_build_s(const Task& t);

// The best time of task `t` by the database's rule (tuning_db/best_rule.h): the figure that
// query, export, report and bench show for it.
double stored_best_ns(tuning_db::TuningDb& store, const Task& t, const std::string& device_key);

// The database's best schedule of task `t`, as an item a measurer may time again beside a
// challenger; nullopt when there is none, its stored JSON no longer parses, or the
// validators refuse it here.
std::optional<MeasureItem> stored_best_item(tuning_db::TuningDb& store, const Task& t, const std::string& device_key);

// A task's state from the database: its workload row, the schedules measured on this
// device, the best time (the measurer's incumbent), and the seeds of the search (the
// database's best, the heuristic, naive, and the best of the same algorithm at other shapes).
void load_task_state(Task& t, tuning_db::TuningDb& store, Measurer& measurer, const std::string& device_key);

// A round's proposals for task `t`: the heuristic first if it was never measured, and its
// strip variants never measured (in its first round), then the evolutionary search's picks,
// or fresh random samples for a random-search run (and for a round whose search failed: the
// model or the features must not end an overnight run).
std::vector<Proposal> propose_round(Task& t, const SearchParams& params, const cost_model::CostModel& scorer,
                                    scheduler::Rng& rng, Progress& progress);

// One measured candidate of task `t` in its summary, its round's record and its failure
// streak; a new best becomes the search's first seed.
void count_result(Task& t, const Proposal& p, const measure::MeasureResult& r, RoundRecord& record);

// True (and the reason in t.summary.stopped) when nothing of task `t` ever ran and its last
// `streak` candidates all failed: the rest of the budget is better spent elsewhere.
bool give_up_if_nothing_runs(Task& t, int streak);

}  // namespace ktune::search::internal
