// Entry point: Tuner::run. It prepares one Task per subgraph (analysis, space, features,
// database state), then loops: pick a task (TaskScheduler), propose candidates
// (EvolutionarySearch), build them in parallel and run each alone (measure/), commit each
// result (TuningDb), retrain the cost model, report progress.
#include "search/tuner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/error.h"
#include "cost_model/analytical_model.h"
#include "cost_model/dataset.h"
#include "cost_model/extractor.h"
#include "cost_model/model_store.h"
#include "measure/builder.h"
#include "measure/retime.h"
#include "measure/runner.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "search/db_records.h"
#include "search/progress.h"
#include "search/task_probe.h"
#include "search/task_scheduler.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search {
namespace {

using scheduler::Schedule;
namespace db = tuning_db;

constexpr int kMinSamplesToTrain = 16;  // ok measurements before the learned model replaces the analytical one
constexpr int kNewSamplesToRetrain = 4; // new ok measurements between retrainings
constexpr double kProbeTimeoutMs = 120000;  // analysis, space and features of one subgraph, in a child

// One subgraph being tuned.
struct Task {
  std::unique_ptr<subgraphs::Subgraph> subgraph;
  std::unique_ptr<scheduler::Space> space;
  std::unique_ptr<cost_model::FeatureExtractor> features;
  int64_t workload_id = 0;
  std::set<std::string> measured;     // hashes measured on this device, any status
  std::vector<Schedule> seeds;        // database best, heuristic, naive, same family at other shapes
  std::string heuristic_hash;
  TaskProgress progress;              // for the scheduler
  TaskSummary summary;
  int failed_streak = 0;              // candidates failed in a row since the last ok one
  std::map<std::string, int> failures;  // messages of that streak, counted
  std::vector<double> build_s;        // build time of each candidate built in this run, seconds
};

// What building one candidate of `t` typically takes, in seconds: the median of this run's
// builds, 0 before the first.
double typical_build_s(const Task& t) {
  if (t.build_s.empty()) return 0;
  std::vector<double> sorted = t.build_s;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  return sorted[sorted.size() / 2];
}

// A candidate whose first timing beats the best is timed kConfirmRuns more times and its
// timings combined: one lucky timing must not become the best that tune prints and the
// database keeps.
constexpr int kConfirmRuns = 2;

measure::MeasureResult confirm_new_best(measure::Runner& runner, const measure::BuiltCandidate& candidate,
                                        measure::MeasureResult first) {
  std::vector<measure::MeasureResult> runs{std::move(first)};
  for (int k = 0; k < kConfirmRuns; ++k) runs.push_back(runner.run(candidate));
  return measure::combine_rounds(runs);
}

// The best time of task `t` by the database's rule (tuning_db/best_rule.h): the figure that
// query, export, report and bench show for it.
double stored_best_ns(db::TuningDb& store, const Task& t, const std::string& device_key) {
  const auto best = store.best(t.summary.workload_key, device_key);
  return best && best->measurement.median_ns ? *best->measurement.median_ns : t.summary.best_ns;
}

// The most frequent failure message of a streak, shortened to one line.
std::string most_common(const std::map<std::string, int>& failures) {
  std::string best;
  int count = 0;
  for (const auto& [message, n] : failures) {
    if (n > count) best = message, count = n;
  }
  const size_t line = best.find('\n');
  if (line != std::string::npos) best = best.substr(0, line);
  return best.size() > 300 ? best.substr(0, 300) + "..." : best;
}

// What a failed candidate ran into: its status and message.
std::string failure_key(const measure::MeasureResult& r) {
  return std::string(measure::to_string(r.status)) + ": " + r.message;
}

// True while process `pid` of this host runs (a process of another user counts).
bool process_alive(int64_t pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}


std::optional<Schedule> parse_schedule(const std::string& json) {
  try {
    return Schedule::from_json(nlohmann::json::parse(json), "database");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A task's state from the database: its workload row, the schedules measured on this
// device, the best time (the Runner's incumbent), and the seeds of the search (the
// database's best, the heuristic, naive, and the best of the same algorithm at other shapes).
void load_task_state(Task& t, db::TuningDb& store, measure::Runner& runner, const std::string& device_key) {
  const subgraphs::Subgraph& sg = *t.subgraph;
  const db::WorkloadRecord w = workload_record(sg);
  t.workload_id = store.upsert_workload(w);
  for (const std::string& h : store.measured_schedule_hashes(w.key, device_key)) t.measured.insert(h);
  t.summary.trials = static_cast<int>(t.measured.size());
  const Schedule heuristic = t.space->heuristic();
  t.heuristic_hash = heuristic.hash();
  for (const db::BestEntry& e : store.top_k(w.key, device_key, 1000)) {
    if (e.schedule_hash == t.heuristic_hash && e.measurement.median_ns) t.summary.heuristic_ns = *e.measurement.median_ns;
    if (t.seeds.size() < 32) {
      if (auto s = parse_schedule(e.schedule_json)) t.seeds.push_back(*s);
    }
  }
  if (auto best = store.best(w.key, device_key); best && best->measurement.median_ns) {
    t.summary.best_ns = *best->measurement.median_ns;
    runner.note_incumbent(w.key, t.summary.best_ns);
    t.progress.best_ns.push_back(t.summary.best_ns);
  }
  t.seeds.push_back(heuristic);
  t.seeds.push_back(t.space->naive());
  // The same algorithm tuned at other shapes.
  for (const db::WorkloadRecord& other : store.workloads_in_family(w.family_key)) {
    if (other.key == w.key) continue;
    for (const db::BestEntry& e : store.top_k(other.key, device_key, 4)) {
      if (auto s = parse_schedule(e.schedule_json)) t.seeds.push_back(*s);
    }
  }
}

// A round's proposals for task `t`: the heuristic first if it was never measured, then the
// evolutionary search's picks, or fresh random samples for a random-search run (and for a
// round whose search failed: the model or the features must not end an overnight run).
std::vector<Proposal> propose_round(Task& t, const SearchParams& params, const cost_model::CostModel& scorer,
                                    scheduler::Rng& rng, Progress& progress) {
  EvolutionarySearch search(*t.space, *t.features, params);
  std::vector<Proposal> proposals;
  if (!t.measured.count(t.heuristic_hash)) {
    proposals.push_back({t.space->heuristic(), std::numeric_limits<double>::quiet_NaN(), false});
  }
  bool random_round = params.random_search;
  std::vector<Proposal> searched;
  if (!random_round) {
    try {
      searched = search.propose(t.seeds, t.measured, scorer, rng);
    } catch (const std::exception& e) {
      progress.note(std::string("ktune: search failed, measuring random samples this round: ") + e.what());
      random_round = true;
    }
  }
  if (random_round) {
    // The baseline: fresh valid samples, never measured before.
    std::set<std::string> taken = t.measured;
    for (int tries = 0; static_cast<int>(proposals.size()) < params.batch && tries < 50 * params.batch; ++tries) {
      auto s = t.space->sample(rng);
      if (s && taken.insert(s->hash()).second) proposals.push_back({*s, std::numeric_limits<double>::quiet_NaN(), true});
    }
  } else {
    for (Proposal& p : searched) {
      if (p.schedule.hash() != t.heuristic_hash) proposals.push_back(std::move(p));
    }
  }
  return proposals;
}

// One measured candidate of task `t` in its summary, its round's record and its failure
// streak; a new best becomes the search's first seed.
void count_result(Task& t, const Proposal& p, const measure::MeasureResult& r, RoundRecord& record) {
  ++t.summary.trials;
  ++t.summary.trials_this_run;
  ++record.measured;
  if (r.ok()) {
    ++record.ok;
    if (record.round_best_ns < 0 || r.median_ns < record.round_best_ns) record.round_best_ns = r.median_ns;
    if (t.summary.first_ns < 0) t.summary.first_ns = r.median_ns;
    if (t.summary.best_ns < 0 || r.median_ns < t.summary.best_ns) {
      t.summary.best_ns = r.median_ns;
      t.seeds.insert(t.seeds.begin(), p.schedule);
    }
    if (p.schedule.hash() == t.heuristic_hash) t.summary.heuristic_ns = r.median_ns;
    t.failed_streak = 0;
    t.failures.clear();
  } else {
    ++t.failed_streak;
    ++t.failures[failure_key(r)];
  }
  t.summary.best_history.push_back(t.summary.best_ns);
}

// True (and the reason in t.summary.stopped) when nothing of task `t` ever ran and its last
// `streak` candidates all failed: the rest of the budget is better spent elsewhere.
bool give_up_if_nothing_runs(Task& t, int streak) {
  if (t.summary.best_ns >= 0 || t.failed_streak < streak) return false;
  t.summary.stopped = "stopped after " + std::to_string(t.failed_streak) +
                      " candidates in a row failed and none ever ran; most often: " + most_common(t.failures);
  return true;
}

}  // namespace

struct Tuner::State {
  TuneOptions options;
  Progress& progress;
  std::vector<Task> tasks;
  State(TuneOptions o, Progress& p) : options(std::move(o)), progress(p) {}
};

Tuner::Tuner(TuneOptions options, std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs, Progress& progress)
    : state_(std::make_unique<State>(std::move(options), progress)) {
  const scheduler::TargetInfo target = scheduler::target_info_from_device(state_->options.device);
  for (auto& sg : subgraphs) {
    Task t;
    // A pipeline that crashes or hangs the analysis is one task given up, not the run.
    t.summary.stopped = probe_task(*sg, target, kProbeTimeoutMs);
    if (t.summary.stopped.empty()) {
      t.space = std::make_unique<scheduler::Space>(scheduler::analyze(*sg, target));
      t.features = std::make_unique<cost_model::FeatureExtractor>(t.space->analysis());
    }
    t.progress.weight = sg->weight();
    t.summary.name = sg->name();
    t.summary.workload_key = sg->key().key;
    t.summary.flops = sg->flops();
    t.summary.bytes = sg->compulsory_bytes();
    t.subgraph = std::move(sg);
    state_->tasks.push_back(std::move(t));
  }
}

Tuner::~Tuner() = default;

TuneSummary Tuner::run(const std::atomic<int>& stop) {
  State& st = *state_;
  const TuneOptions& opt = st.options;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  db::OpenOptions open;
  open.mode = sqlite::OpenMode::kCreate;
  open.versions = {opt.ktune_version, opt.halide_version};
  db::TuningDb store = db::TuningDb::open(opt.db_path, open);
  const std::string device_key = targets::device_key(opt.device);
  const int64_t device_id = store.upsert_device(device_record(opt.device));
  db::RunRecord run_record;
  run_record.command = nlohmann::json(opt.command).dump();
  run_record.host = host_name();
  run_record.budget = opt.budget.text;
  run_record.pid = static_cast<int64_t>(getpid());
  // Earlier runs of this host that a signal or a power cut ended never said so.
  if (const int killed = store.mark_killed_runs(run_record.host, process_alive)) {
    st.progress.note("ktune: " + std::to_string(killed) + " earlier run" + (killed == 1 ? "" : "s") +
                     " of this host ended without a word (killed); marked as killed");
  }
  const int64_t run_id = store.begin_run(run_record);

  measure::RunOptions run_options;
  run_options.threads = opt.threads;
  run_options.timing.min_repeats = opt.min_repeats;
  run_options.timing.min_total_ms = opt.repeat_min_ms;
  measure::Runner runner(run_options);
  // A GPU device is this machine's: its kernels are JIT-compiled for the host plus the GPU.
  const std::string jit_target = measure::jit_target_for(opt.device.halide_target);

  // Each task's state from the database: measured schedules, best time, seeds.
  for (Task& t : st.tasks) {
    if (t.space) load_task_state(t, store, runner, device_key);  // else given up in the constructor
  }

  // References first: a subgraph whose reference cannot be computed cannot be tuned.
  for (Task& t : st.tasks) {
    if (!t.summary.stopped.empty()) continue;
    st.progress.note("ktune: " + t.summary.name + ": computing the reference");
    t.summary.stopped = runner.reference_error(*t.subgraph);
  }

  // The cost model: the newest stored one, or the analytical model until enough data exists.
  std::unique_ptr<cost_model::CostModel> model;
  try {
    if (auto stored = cost_model::load_latest_model(store, device_key)) model = std::move(stored->model);
  } catch (const UserError& e) {
    st.progress.note(std::string("ktune: ignoring the stored cost model: ") + e.what());
  }
  auto analytical = std::make_unique<cost_model::AnalyticalModel>(scheduler::target_info_from_device(opt.device));
  int new_ok = 0;      // ok measurements since the last retraining
  int trained_on = 0;  // samples the last retraining saw
  auto retrain = [&] {
    std::map<std::string, const cost_model::FeatureExtractor*> extractors;
    for (const Task& t : st.tasks) {
      if (t.features) extractors[t.summary.workload_key] = t.features.get();
    }
    try {
      const cost_model::Dataset data = cost_model::load_dataset(store, device_key, [&](const db::WorkloadRecord& w) {
        auto it = extractors.find(w.key);
        return it == extractors.end() ? nullptr : it->second;
      });
      trained_on = static_cast<int>(data.samples.size());
      if (static_cast<int>(data.samples.size()) < kMinSamplesToTrain) return;
      cost_model::train_and_store(store, device_key, data, {}, opt.seed);
      if (auto stored = cost_model::load_latest_model(store, device_key)) model = std::move(stored->model);
    } catch (const std::exception& e) {
      st.progress.note(std::string("ktune: cost model not retrained: ") + e.what());
    }
  };

  TaskScheduler scheduler;
  scheduler::Rng rng(opt.seed);
  TuneSummary summary;
  summary.db_path = opt.db_path;
  // Tasks that still have unmeasured schedules to propose.
  std::vector<size_t> active;
  for (size_t i = 0; i < st.tasks.size(); ++i) {
    if (st.tasks[i].summary.stopped.empty()) {
      active.push_back(i);
    } else {
      st.progress.note("ktune: " + st.tasks[i].summary.name + ": not tuned: " + st.tasks[i].summary.stopped);
    }
  }
  auto lines = [&] {
    std::vector<TaskLine> out;
    for (const Task& t : st.tasks) out.push_back({t.summary.name, t.summary.trials, t.summary.best_ns, t.summary.first_ns});
    return out;
  };
  auto budget_left = [&] {
    if (stop.load() != 0) return false;
    if (opt.budget.seconds && elapsed() >= *opt.budget.seconds) return false;
    if (opt.budget.trials && summary.trials >= *opt.budget.trials) return false;
    return true;
  };
  st.progress.update(elapsed(), 0, lines());

  while (budget_left() && !active.empty()) {
    std::vector<TaskProgress> progress;
    for (size_t i : active) progress.push_back(st.tasks[i].progress);
    const size_t pick = scheduler.next(progress);
    const size_t ti = active[pick];
    Task& t = st.tasks[ti];
    // A budget is a limit: no candidate starts that would not finish before it ends, and in
    // the warm-up no task takes more than its share of what is left. A round starts builds
    // for at most kRoundStartWindowS.
    int waiting = 0;
    for (size_t i : active) waiting += st.tasks[i].progress.rounds == 0 ? 1 : 0;
    const std::optional<double> round_end = round_end_s(opt.budget, elapsed(), t.progress.rounds == 0 ? waiting : 0);
    double last_start = elapsed() + kRoundStartWindowS;
    if (round_end) {
      if (elapsed() >= last_start_s(*round_end, typical_build_s(t))) {
        st.progress.note("ktune: stopping " + std::to_string(static_cast<int>(*round_end - elapsed())) +
                         " s early: a candidate of " + t.summary.name + " takes about " +
                         std::to_string(static_cast<int>(typical_build_s(t) + 0.5)) + " s to build");
        break;
      }
      last_start = std::min(last_start, last_start_s(*round_end, typical_build_s(t)));
    }
    const cost_model::CostModel& scorer = model && model->trained() ? *model : static_cast<const cost_model::CostModel&>(*analytical);

    std::vector<Proposal> proposals = propose_round(t, opt.search, scorer, rng, st.progress);
    if (opt.budget.trials) {
      const int left = *opt.budget.trials - summary.trials;
      if (static_cast<int>(proposals.size()) > left) proposals.resize(std::max(0, left));
    }
    if (proposals.empty()) {
      // Nothing new to measure for this task (its space is exhausted, or the trial budget is).
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(pick));
      continue;
    }

    std::vector<measure::Candidate> candidates;
    for (const Proposal& p : proposals) {
      candidates.push_back({t.subgraph.get(), p.schedule.hash(), scheduler::make_applier(p.schedule, t.space->analysis()),
                            p.random ? "random" : "predicted"});
    }
    measure::BuildOptions build_options;
    build_options.threads = 0;
    build_options.target = jit_target;
    build_options.start_before = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(last_start));
    const measure::BuildBatch batch = measure::build_candidates(candidates, build_options);

    RoundRecord record;
    record.task = t.summary.name;
    record.workload_key = t.summary.workload_key;
    record.round = t.progress.rounds + 1;
    record.model = opt.search.random_search ? "random" : scorer.kind();
    for (size_t i = 0; i < batch.candidates.size(); ++i) {
      if (stop.load() != 0) break;  // abandon the rest of the round; nothing is half-written
      if (batch.candidates[i].skipped) continue;
      measure::MeasureResult r = runner.run(batch.candidates[i]);
      if (r.build_ms >= 0) t.build_s.push_back(r.build_ms / 1000.0);
      if (r.ok() && (t.summary.best_ns < 0 || r.median_ns < t.summary.best_ns)) {
        r = confirm_new_best(runner, batch.candidates[i], std::move(r));
      }
      const Proposal& p = proposals[i];
      const int64_t schedule_id =
          store.upsert_schedule(t.workload_id, candidates[i].schedule_hash, p.schedule.to_json().dump());
      db::MeasurementRecord m = measurement_record(r, schedule_id, device_id, run_id);
      if (std::isfinite(p.predicted)) m.predicted = p.predicted;
      store.record_measurement(m);  // committed here: a crash after this loses nothing
      t.measured.insert(candidates[i].schedule_hash);
      ++summary.trials;
      count_result(t, p, r, record);
      if (r.ok()) {
        ++new_ok;
        t.summary.best_ns = stored_best_ns(store, t, device_key);
      }
      st.progress.update(elapsed(), summary.trials, lines());
      if (opt.budget.seconds && elapsed() >= *opt.budget.seconds) break;
    }
    t.progress.rounds++;
    t.progress.best_ns.push_back(t.summary.best_ns > 0 ? t.summary.best_ns : std::numeric_limits<double>::infinity());
    record.elapsed_s = elapsed();
    record.best_ns = t.summary.best_ns;
    record.trials = t.summary.trials;
    st.progress.round(record);
    if (give_up_if_nothing_runs(t, std::max(opt.give_up_after, 2 * opt.search.batch))) {
      st.progress.note("ktune: " + t.summary.name + ": " + t.summary.stopped);
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    // Retrain after a tenth more data (at least kNewSamplesToRetrain samples): each
    // retraining reads every stored schedule, so a fixed interval would grow quadratically.
    if (new_ok >= std::max(kNewSamplesToRetrain, trained_on / 10) && budget_left()) {
      retrain();
      new_ok = 0;
    }
  }

  measure::wait_for_late_builds(60000);
  summary.interrupted = stop.load() != 0;
  summary.elapsed_s = elapsed();
  store.end_run(run_id, summary.interrupted ? db::RunStatus::kInterrupted : db::RunStatus::kCompleted);
  for (const Task& t : st.tasks) summary.tasks.push_back(t.summary);
  return summary;
}

}  // namespace ktune::search
