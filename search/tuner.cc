// Entry point: Tuner::run. It prepares one Task per subgraph (analysis, space, features,
// database state; search/internal/tuning_task.h), then loops as the steps of a TuningRun:
// pick a task (TaskScheduler), propose candidates (EvolutionarySearch), submit them to the
// Measurer (built in parallel, each run alone), collect and commit each result (TuningDb),
// retrain the cost model, report progress. With a measurer of depth 2 (MPI ranks) the next
// round is proposed and submitted before the last one is collected.
#include "search/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>

#include "common/check.h"
#include "common/error.h"
#include "common/stop_request.h"
#include "cost_model/analytical_model.h"
#include "cost_model/dataset.h"
#include "cost_model/extractor.h"
#include "cost_model/model_store.h"
#include "measure/builder.h"
#include "measure/runner.h"
#include "measure/usable_cores.h"
#include "schedule_store/db_records.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "search/internal/run_record.h"
#include "search/internal/tuning_task.h"
#include "search/local_measurer.h"
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
using internal::begin_run_record;
using internal::count_result;
using internal::give_up_if_nothing_runs;
using internal::host_name;
using internal::load_task_state;
using internal::open_database;
using internal::propose_round;
using internal::samples_seen_by_model;
using internal::stored_best_item;
using internal::stored_best_ns;
using internal::Task;
using internal::typical_build_s;

constexpr int kMinSamplesToTrain = 16;  // ok measurements of a task's algorithm before the learned model ranks it
constexpr int kNewSamplesToRetrain = 4; // new ok measurements between retrainings
constexpr double kProbeTimeoutMs = 120000;  // analysis, space and features of one subgraph, in a child

// A round's proposals as the measurer takes them, each tagged with how it was chosen.
std::vector<MeasureItem> measure_items(const std::vector<Proposal>& proposals) {
  std::vector<MeasureItem> items;
  for (const Proposal& p : proposals) items.push_back({p.schedule.hash(), p.schedule, p.random ? "random" : "predicted"});
  return items;
}

// One call of Tuner::run: what its steps share (the database and this run's record, the
// measurer, the cost model, the tasks still being tuned and the summary so far).
struct TuningRun {
  const TuneOptions& opt;
  Progress& progress;
  std::vector<Task>& tasks;
  const std::atomic<int>& stop;
  const std::chrono::steady_clock::time_point start;
  db::TuningDb store;
  const std::string device_key;
  const int64_t device_id;
  const int64_t run_id;
  Measurer& measurer;
  std::map<std::string, int64_t> other_device_ids;  // results timed on another device (mixed MPI ranks)
  std::unique_ptr<cost_model::CostModel> model;             // the newest learned model, if any
  std::map<std::string, int> model_samples;                 // its training samples per workload key
  std::unique_ptr<cost_model::AnalyticalModel> analytical;  // stands in until the learned model is trained
  int new_ok = 0;      // ok measurements since the last retraining
  int trained_on = 0;  // samples the last retraining saw
  TaskScheduler task_scheduler;
  scheduler::Rng rng;
  TuneSummary summary;
  std::vector<size_t> active;  // tasks that still have unmeasured schedules to propose
  SearchParams search;         // opt.search, giving up once a stop or the time budget ends the run
  // Elapsed second at which the round being proposed stops searching: half of the time its
  // builds may start in, so that a pipeline whose schedules are slow to score (a 90-Func
  // pyramid takes most of a second each) still builds and measures candidates.
  double search_until_s = std::numeric_limits<double>::infinity();

  // A round handed to the measurer and not collected yet.
  struct SubmittedRound {
    size_t task = 0;  // index in `tasks`
    std::vector<Proposal> proposals;
    std::vector<std::string> hashes;
    RoundRecord record;
    std::optional<MeasureItem> incumbent;  // the stored best, which the measurer may time again
  };
  std::deque<SubmittedRound> submitted;  // oldest first, at most measurer.depth()
  int submitted_trials = 0;              // their candidates

  // Opens the database and begins this run's record, in that order. The budget counts from
  // `began`, when the tasks' analysis began.
  TuningRun(const TuneOptions& o, Progress& p, std::vector<Task>& ts, const std::atomic<int>& s, Measurer& m,
            std::chrono::steady_clock::time_point began)
      : opt(o),
        progress(p),
        tasks(ts),
        stop(s),
        start(began),
        store(open_database(o)),
        device_key(targets::device_key(o.device)),
        device_id(store.upsert_device(schedule_store::device_record(o.device))),
        run_id(begin_run_record(store, o, p)),
        measurer(m),
        task_scheduler(o.task_scheduler),
        rng(o.seed) {
    summary.db_path = o.db_path;
    search = o.search;
    search.give_up = [this] { return !time_left() || elapsed() >= search_until_s; };
    for (const targets::Device& d : measurer.other_devices()) {
      other_device_ids[targets::device_key(d)] = store.upsert_device(schedule_store::device_record(d));
    }
  }

  // Seconds since the run began: what the time budget is measured against.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Candidates of a round one machine builds (a round carries a batch per measuring rank).
  int candidates_per_machine() const { return search.batch / std::max(1, measurer.width()); }

  // Candidates one machine compiles at a time: as the local measurer is told to.
  int builders() const { return opt.build_threads > 0 ? opt.build_threads : measure::usable_cores(); }

  // Each task's state from the database (measured schedules, best time, seeds), so the run continues earlier ones.
  void load_task_states() {
    for (Task& t : tasks) {
      if (t.space) load_task_state(t, store, measurer, device_key);  // else given up in the constructor
    }
  }

  // References first: a subgraph whose reference cannot be computed cannot be tuned.
  void compute_references() {
    for (Task& t : tasks) {
      if (!t.summary.stopped.empty() || !time_left()) continue;
      progress.note("ktune: " + t.summary.name + ": computing the reference");
      t.summary.stopped = measurer.prepare(*t.subgraph);
    }
  }

  // The cost model: the newest stored one, and the analytical model for the tasks it has not
  // learned enough of.
  void load_cost_model() {
    try {
      use_latest_model();
    } catch (const UserError& e) {
      progress.note(std::string("ktune: ignoring the stored cost model: ") + e.what());
    }
    analytical = std::make_unique<cost_model::AnalyticalModel>(scheduler::target_info_from_device(opt.device));
  }

  // Tunes the tasks not given up before the first round, and says why the others are not tuned.
  void choose_active_tasks() {
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].summary.stopped.empty()) {
        active.push_back(i);
      } else {
        progress.note("ktune: " + tasks[i].summary.name + ": not tuned: " + tasks[i].summary.stopped);
      }
    }
  }

  // Redraws the progress display with every task's trials and best time.
  void report_progress() {
    std::vector<TaskLine> lines;
    for (const Task& t : tasks) {
      lines.push_back({t.summary.name, t.summary.trials, t.summary.best_ns, t.summary.first_ns});
    }
    progress.update(elapsed(), summary.trials, lines);
  }

  // False once a signal or the time budget has ended the run.
  bool time_left() const {
    if (stop.load() != 0) return false;
    return !(opt.budget.seconds && elapsed() >= *opt.budget.seconds);
  }

  // False once a signal, the time budget or the trial budget has ended the run.
  bool budget_left() const {
    if (!time_left()) return false;
    if (opt.budget.trials && summary.trials >= *opt.budget.trials) return false;
    return true;
  }

  // One round of the task the scheduler picks, submitted to the measurer; the oldest round is
  // collected once the measurer holds as many as it takes. False when the budget leaves no
  // time to build the picked task's next candidate.
  bool tune_round() {
    const size_t pick = pick_task();
    const size_t task = active[pick];
    Task& t = tasks[task];
    const std::optional<double> last_start = last_build_start_s(t);
    if (!last_start) return false;
    const cost_model::CostModel& scorer = current_scorer(t);
    search_until_s = elapsed() + std::max(0.0, *last_start - elapsed()) / 2;
    if (const std::optional<double> window = search_window_s(typical_build_s(t), candidates_per_machine(), builders())) {
      search_until_s = std::min(search_until_s, elapsed() + *window);
    }
    const double search_start = elapsed();
    const std::vector<Proposal> proposals = propose_within_budget(t, scorer);
    if (!proposals.empty()) {
      submit_round(task, proposals, scorer, *last_start, elapsed() - search_start);
      if (static_cast<int>(submitted.size()) >= measurer.depth()) collect_oldest();
    } else if (!submitted.empty()) {
      collect_oldest();  // the budget's trials are out there, or the task's last schedules
    } else {
      // Nothing new to measure for this task (its space is exhausted, or the trial budget is).
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    return true;
  }

  // Collects every round still being measured, before the run ends.
  void collect_submitted() {
    while (!submitted.empty()) collect_oldest();
  }

  // Stops tuning task `task` (given up, or its trial cap reached) if it still is.
  void deactivate(size_t task) {
    const auto it = std::find(active.begin(), active.end(), task);
    if (it != active.end()) active.erase(it);
  }

  // The position in `active` of the task that gets the next round. A round being measured
  // counts as a round that gained nothing, so the warm-up still gives every task one first.
  size_t pick_task() const {
    std::vector<TaskProgress> active_progress;
    for (size_t i : active) {
      TaskProgress p = tasks[i].progress;
      if (tasks[i].submitted > 0) {
        ++p.rounds;
        if (!p.best_ns.empty()) p.best_ns.push_back(p.best_ns.back());
      }
      active_progress.push_back(std::move(p));
    }
    return task_scheduler.next(active_progress);
  }

  // The elapsed second after which no build of `t`'s round may start; none (noted) when the budget is too short.
  std::optional<double> last_build_start_s(const Task& t) {
    // A budget is a limit: no candidate starts that would not finish before it ends, and in
    // the warm-up no task takes more than its share of what is left. A round starts builds
    // for at most kRoundStartWindowS.
    int waiting = 0;
    for (size_t i : active) waiting += tasks[i].progress.rounds == 0 ? 1 : 0;
    const std::optional<double> round_end = round_end_s(opt.budget, elapsed(), t.progress.rounds == 0 ? waiting : 0);
    double last_start = elapsed() + kRoundStartWindowS;
    if (round_end) {
      if (elapsed() >= last_start_s(*round_end, typical_build_s(t))) {
        progress.note("ktune: stopping " + std::to_string(static_cast<int>(*round_end - elapsed())) +
                      " s early: a candidate of " + t.summary.name + " takes about " +
                      std::to_string(static_cast<int>(typical_build_s(t) + 0.5)) + " s to build");
        return std::nullopt;
      }
      last_start = std::min(last_start, last_start_s(*round_end, typical_build_s(t)));
    }
    return last_start;
  }

  // The model that ranks `t`'s candidates: the learned one once it has learned from
  // kMinSamplesToTrain of `t`'s algorithm, the analytical one before. A ranking model trained
  // on other pipelines ranks a new one no better than chance, or worse: on a deep stencil
  // chain, one trained on blur pipelines put schedules 40x slower than the heuristic first.
  const cost_model::CostModel& current_scorer(const Task& t) const {
    return model_knows(t) ? *model : static_cast<const cost_model::CostModel&>(*analytical);
  }

  // True when the learned model is trained and has learned enough of `t`'s algorithm.
  bool model_knows(const Task& t) const {
    return model && model->trained() && samples_seen_by_model(t, model_samples) >= kMinSamplesToTrain;
  }

  // Takes the newest stored model of the device, with what it learned from, if there is one.
  void use_latest_model() {
    if (auto stored = cost_model::load_latest_model(store, device_key)) {
      model = std::move(stored->model);
      model_samples = cost_model::workload_samples(stored->record);
    }
  }

  // Task `t`'s proposals for this round, no more than the trial budget has left once the
  // rounds being measured are counted.
  std::vector<Proposal> propose_within_budget(Task& t, const cost_model::CostModel& scorer) {
    std::vector<Proposal> proposals = propose_round(t, search, scorer, rng, progress);
    if (opt.budget.trials) {
      const int left = *opt.budget.trials - summary.trials - submitted_trials;
      if (static_cast<int>(proposals.size()) > left) proposals.resize(std::max(0, left));
    }
    if (opt.trials_per_task > 0) {
      const int left = opt.trials_per_task - t.summary.trials_this_run - t.submitted;
      if (static_cast<int>(proposals.size()) > left) proposals.resize(std::max(0, left));
    }
    return proposals;
  }

  // Hands the round's candidates, proposed in `search_s` seconds, to the measurer (none may
  // start building after `last_start` elapsed seconds, so the budget holds). They count as
  // measured for the search from now on, so a round proposed before this one is collected
  // does not propose them again.
  void submit_round(size_t task, const std::vector<Proposal>& proposals, const cost_model::CostModel& scorer,
                    double last_start, double search_s) {
    Task& t = tasks[task];
    MeasureRound round;
    round.subgraph = t.subgraph.get();
    round.analysis = &t.space->analysis();
    round.workload_key = t.summary.workload_key;
    round.items = measure_items(proposals);
    round.incumbent_ns = t.summary.best_ns;
    round.incumbent = stored_best_item(store, t, device_key);
    round.start_before = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(last_start));
    SubmittedRound s{task, proposals, {}, new_round_record(t, scorer), round.incumbent};
    s.record.search_s = search_s;
    for (const MeasureItem& item : round.items) {
      s.hashes.push_back(item.schedule_hash);
      t.measured.insert(item.schedule_hash);
    }
    t.submitted += static_cast<int>(proposals.size());
    submitted_trials += static_cast<int>(proposals.size());
    measurer.submit(std::move(round));
    submitted.push_back(std::move(s));
  }

  // Collects the oldest submitted round, committing each result as it arrives, then closes
  // the round: its log entry, giving up on a task that never runs, the trial cap, retraining.
  void collect_oldest() {
    SubmittedRound s = std::move(submitted.front());
    submitted.pop_front();
    Task& t = tasks[s.task];
    measurer.collect(stop, [&](size_t i, const measure::MeasureResult& r, const Provenance& who) {
      if (i == s.proposals.size() && s.incumbent) {
        commit_incumbent_timing(t, *s.incumbent, r, who);
      } else {
        KTUNE_CHECK(i < s.proposals.size()) << "result " << i << " of a round of " << s.proposals.size();
        if (r.build_ms >= 0) t.build_s.push_back(r.build_ms / 1000.0);
        commit_result(t, s.proposals[i], s.hashes[i], r, who, s.record);
      }
      return !(opt.budget.seconds && elapsed() >= *opt.budget.seconds);
    });
    t.submitted -= static_cast<int>(s.proposals.size());
    submitted_trials -= static_cast<int>(s.proposals.size());
    finish_round(t, s.record);
    const bool given_up = give_up_if_nothing_runs(t, std::max(opt.give_up_after, 2 * opt.search.batch));
    if (given_up) progress.note("ktune: " + t.summary.name + ": " + t.summary.stopped);
    const bool capped = opt.trials_per_task > 0 && t.summary.trials_this_run >= opt.trials_per_task;
    if (given_up || capped) deactivate(s.task);
    retrain_if_due();
  }

  // Task `t`'s next round as logged, before any candidate is counted in it (its number is
  // given when it is collected).
  RoundRecord new_round_record(const Task& t, const cost_model::CostModel& scorer) const {
    RoundRecord record;
    record.task = t.summary.name;
    record.workload_key = t.summary.workload_key;
    record.model = opt.search.random_search ? "random" : scorer.kind();
    return record;
  }

  // Commits one result to the database as it arrives (a crash loses nothing), then counts and shows it.
  void commit_result(Task& t, const Proposal& p, const std::string& schedule_hash, const measure::MeasureResult& r,
                     const Provenance& who, RoundRecord& record) {
    const int64_t schedule_id = store.upsert_schedule(t.workload_id, schedule_hash, p.schedule.to_json().dump());
    // A rank on another device (allowed with --allow-mixed-devices) stores under its own.
    const auto other = other_device_ids.find(who.device_key);
    const bool own_device = who.device_key.empty() || other == other_device_ids.end();
    db::MeasurementRecord m = measurement_of(r, schedule_id, own_device ? device_id : other->second, who);
    if (std::isfinite(p.predicted)) m.predicted = p.predicted;
    store.record_measurement(m);  // committed here: a crash after this loses nothing
    if (!own_device) {
      t.measured.insert(schedule_hash);
      ++summary.trials;
      report_progress();
      return;  // timings of another device neither count for this device's best nor steer its search
    }
    t.measured.insert(schedule_hash);
    ++summary.trials;
    count_result(t, p, r, record);
    if (r.ok()) {
      ++new_ok;
      t.summary.best_ns = stored_best_ns(store, t, device_key);
    }
    report_progress();
  }

  // Commits the stored best's new timing, taken beside a challenger in the same minutes, as
  // another measurement of it: the database's rule then weighs the challenger against it.
  // It is not a trial of the search.
  void commit_incumbent_timing(Task& t, const MeasureItem& incumbent, const measure::MeasureResult& r,
                               const Provenance& who) {
    // A rank on another device timed this device's best: that figure is no measurement of it here.
    const bool other_device = !who.device_key.empty() && other_device_ids.count(who.device_key) > 0;
    if (!r.ok() || other_device) return;
    const int64_t schedule_id = store.upsert_schedule(t.workload_id, incumbent.schedule_hash,
                                                      incumbent.schedule.to_json().dump());
    store.record_measurement(measurement_of(r, schedule_id, device_id, who));
    t.summary.best_ns = stored_best_ns(store, t, device_key);
  }

  // The row of `r` for a schedule on a device, naming who measured it (the rank only when
  // several measure).
  db::MeasurementRecord measurement_of(const measure::MeasureResult& r, int64_t schedule_id, int64_t device,
                                       const Provenance& who) const {
    db::MeasurementRecord m = schedule_store::measurement_record(r, schedule_id, device, run_id);
    m.host = who.host;
    if (measurer.width() > 1 || who.rank > 0) m.rank = who.rank;
    return m;
  }

  // Closes task `t`'s round: it is numbered, the scheduler learns its new best, and the round is logged.
  void finish_round(Task& t, RoundRecord& record) {
    t.progress.rounds++;
    record.round = t.progress.rounds;
    t.progress.best_ns.push_back(t.summary.best_ns > 0 ? t.summary.best_ns : std::numeric_limits<double>::infinity());
    record.elapsed_s = elapsed();
    record.best_ns = t.summary.best_ns;
    record.trials = t.summary.trials;
    progress.round(record);
  }

  // Retrains after a tenth more data (at least kNewSamplesToRetrain samples): each
  // retraining reads every stored schedule, so a fixed interval would grow quadratically.
  // A task the model has not learned retrains as soon as it has the samples to be learned.
  void retrain_if_due() {
    const bool tenth_more = new_ok >= std::max(kNewSamplesToRetrain, trained_on / 10);
    const bool task_to_learn = new_ok >= kNewSamplesToRetrain && std::any_of(active.begin(), active.end(), [&](size_t i) {
      const Task& t = tasks[i];
      return !model_knows(t) && t.ok_stored + t.summary.ok_this_run >= kMinSamplesToTrain;
    });
    if (opt.train_model && (tenth_more || task_to_learn) && budget_left()) {
      retrain();
      new_ok = 0;
    }
  }

  // Trains and stores a cost model on every stored measurement, so later rounds propose better candidates.
  void retrain() {
    std::map<std::string, const cost_model::FeatureExtractor*> extractors;
    for (const Task& t : tasks) {
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
      use_latest_model();
    } catch (const std::exception& e) {
      progress.note(std::string("ktune: cost model not retrained: ") + e.what());
    }
  }

  // Ends the run's record as completed or interrupted, and sums the run up for the caller.
  TuneSummary finish() {
    measurer.finish();
    summary.interrupted = stop.load() != 0;
    summary.elapsed_s = elapsed();
    store.end_run(run_id, summary.interrupted ? db::RunStatus::kInterrupted : db::RunStatus::kCompleted);
    std::vector<TaskProgress> progress_of_tasks;
    for (const Task& t : tasks) {
      summary.tasks.push_back(t.summary);
      progress_of_tasks.push_back(t.progress);
    }
    summary.peak_correction = task_scheduler.peak_correction(progress_of_tasks);
    return std::move(summary);
  }
};

}  // namespace

struct Tuner::State {
  TuneOptions options;
  Progress& progress;
  std::vector<Task> tasks;
  std::unique_ptr<Measurer> measurer;
  // When the run began: its time budget covers the analysis of its tasks too.
  std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  State(TuneOptions o, Progress& p) : options(std::move(o)), progress(p) {}

  // Seconds of the time budget left (none without one).
  std::optional<double> seconds_left() const {
    if (!options.budget.seconds) return std::nullopt;
    return *options.budget.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  }
};

LocalMeasurerOptions local_measurer_options(const TuneOptions& options) {
  LocalMeasurerOptions local;
  local.run = measure::run_options_for(options.threads, options.min_repeats, options.repeat_min_ms);
  // A candidate 4x slower than the best cannot win: one timed run ranks it for the model,
  // and the rest of the protocol (seconds on a deep pipeline) goes to other candidates.
  local.run.hopeless_slowdown = 4;
  // A reference that takes longer than the whole time budget leaves nothing to tune with.
  if (options.budget.seconds) {
    local.run.reference_timeout_ms = std::min(local.run.reference_timeout_ms, 1000 * *options.budget.seconds);
  }
  local.build_threads = options.build_threads;
  // A GPU device is this machine's: its kernels are JIT-compiled for the host plus the GPU.
  local.jit_target = measure::jit_target_for(options.device.halide_target);
  local.host = host_name();
  return local;
}

Tuner::Tuner(TuneOptions options, std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs, Progress& progress,
             std::unique_ptr<Measurer> measurer)
    : state_(std::make_unique<State>(std::move(options), progress)) {
  state_->measurer =
      measurer ? std::move(measurer) : std::make_unique<LocalMeasurer>(local_measurer_options(state_->options));
  // A round carries a batch for every measuring rank, so none idles.
  state_->options.search.batch *= std::max(1, state_->measurer->width());
  const scheduler::TargetInfo target = scheduler::target_info_from_device(state_->options.device);
  for (auto& sg : subgraphs) {
    Task t;
    t.summary.stopped = analyze_task(*sg, target, t);
    t.progress.weight = sg->weight();
    if (state_->options.roofline) t.progress.roofline = state_->options.roofline(*sg);
    t.summary.roofline_ns = t.progress.roofline.total_ns();
    t.summary.name = sg->name();
    t.summary.workload_key = sg->key().key;
    t.summary.flops = sg->flops();
    t.summary.bytes = sg->compulsory_bytes();
    t.subgraph = std::move(sg);
    state_->tasks.push_back(std::move(t));
  }
}

std::string Tuner::analyze_task(const subgraphs::Subgraph& subgraph, const scheduler::TargetInfo& target,
                                internal::Task& t) const {
  if (stop_requested()) return "not analyzed: the run was asked to stop";
  // The probe may take what is left of the time budget: it also extracts the features of a
  // few schedules, the slow part; the analysis here repeats a fraction of its work.
  double timeout_ms = kProbeTimeoutMs;
  if (const std::optional<double> left = state_->seconds_left()) {
    if (*left <= 0) return "not analyzed: the time budget was spent before its turn";
    timeout_ms = std::min(timeout_ms, 1000 * *left);
  }
  // A pipeline that crashes or hangs the analysis is one task given up, not the run.
  if (std::string why = probe_task(subgraph, target, timeout_ms); !why.empty()) return why;
  t.space = std::make_unique<scheduler::Space>(scheduler::analyze(subgraph, target));
  t.features = std::make_unique<cost_model::FeatureExtractor>(t.space->analysis());
  return "";
}

Tuner::~Tuner() = default;

TuneSummary Tuner::run(const std::atomic<int>& stop) {
  TuningRun tuning(state_->options, state_->progress, state_->tasks, stop, *state_->measurer, state_->began);
  tuning.load_task_states();
  tuning.compute_references();
  tuning.load_cost_model();
  tuning.choose_active_tasks();
  tuning.report_progress();
  while (tuning.budget_left() && !tuning.active.empty()) {
    if (!tuning.tune_round()) break;
  }
  tuning.collect_submitted();
  return tuning.finish();
}

}  // namespace ktune::search
