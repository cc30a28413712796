#include "search/internal/tuning_task.h"

#include <algorithm>
#include <limits>
#include <set>

#include "schedule_store/db_records.h"
#include "schedule_store/stored_schedule.h"

namespace ktune::search::internal {
namespace {

using scheduler::Schedule;
namespace db = tuning_db;

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

std::optional<Schedule> parse_schedule(const std::string& json) {
  try {
    return schedule_store::parse_stored_schedule(json, "database");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The baseline's proposals, up to a batch: fresh valid samples never measured before and, with
// params.mutate_fraction, mutations of the seeds (the best measured first); with
// params.naive_first the naive schedule leads when it was never measured.
void add_random_proposals(const Task& t, const SearchParams& params, scheduler::Rng& rng,
                          std::vector<Proposal>& proposals) {
  std::set<std::string> taken = t.measured;
  for (const Proposal& p : proposals) taken.insert(p.schedule.hash());
  const auto add = [&](const Schedule& s) {
    if (taken.insert(s.hash()).second) proposals.push_back({s, std::numeric_limits<double>::quiet_NaN(), true});
  };
  if (params.naive_first) add(t.space->naive());
  for (int tries = 0; static_cast<int>(proposals.size()) < params.batch && tries < 50 * params.batch; ++tries) {
    std::optional<Schedule> s;
    if (!t.seeds.empty() && params.mutate_fraction > 0 && rng.chance(params.mutate_fraction)) {
      const size_t pool = rng.chance(0.5) ? std::max<size_t>(1, t.seeds.size() / 4) : t.seeds.size();
      s = t.space->mutate(t.seeds[rng.below(static_cast<int64_t>(pool))], rng);
    } else {
      s = t.space->sample(rng);
    }
    if (s) add(*s);
  }
}

}  // namespace

// What building one candidate of `t` typically takes, in seconds: the median of this run's
// builds, 0 before the first.
double typical_build_s(const Task& t) {
  if (t.build_s.empty()) return 0;
  std::vector<double> sorted = t.build_s;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  return sorted[sorted.size() / 2];
}

// The best time of task `t` by the database's rule (tuning_db/best_rule.h): the figure that
// query, export, report and bench show for it.
double stored_best_ns(db::TuningDb& store, const Task& t, const std::string& device_key) {
  const auto best = store.best(t.summary.workload_key, device_key);
  return best && best->measurement.median_ns ? *best->measurement.median_ns : t.summary.best_ns;
}

std::optional<MeasureItem> stored_best_item(db::TuningDb& store, const Task& t, const std::string& device_key) {
  const auto best = store.best(t.summary.workload_key, device_key);
  if (!best) return std::nullopt;
  std::optional<Schedule> schedule = parse_schedule(best->schedule_json);
  // A best an earlier version stored that the validators now refuse (a loop it runs in
  // parallel carries a dependence) is never run again.
  if (!schedule || t.space->validate(*schedule)) return std::nullopt;
  return MeasureItem{best->schedule_hash, std::move(*schedule), "incumbent"};
}

// What the model learned of `t`'s algorithm: the samples of its workload and of its other shapes.
int samples_seen_by_model(const Task& t, const std::map<std::string, int>& model_samples) {
  const auto seen = [&](const std::string& key) {
    const auto it = model_samples.find(key);
    return it == model_samples.end() ? 0 : it->second;
  };
  int samples = seen(t.summary.workload_key);
  for (const std::string& key : t.family_keys) samples += seen(key);
  return samples;
}

// A task's state from the database: its workload row, the schedules measured on this
// device, the best time (the measurer's incumbent), and the seeds of the search (the
// database's best, the heuristic, naive, and the best of the same algorithm at other shapes).
void load_task_state(Task& t, db::TuningDb& store, Measurer& measurer, const std::string& device_key) {
  const subgraphs::Subgraph& sg = *t.subgraph;
  const db::WorkloadRecord w = schedule_store::workload_record(sg);
  t.workload_id = store.upsert_workload(w);
  for (const std::string& h : store.measured_schedule_hashes(w.key, device_key)) t.measured.insert(h);
  t.summary.trials = static_cast<int>(t.measured.size());
  const Schedule heuristic = t.space->heuristic();
  t.heuristic_hash = heuristic.hash();
  for (const db::BestEntry& e : store.top_k(w.key, device_key, 1000)) {
    ++t.ok_stored;
    if (e.schedule_hash == t.heuristic_hash && e.measurement.median_ns) t.summary.heuristic_ns = *e.measurement.median_ns;
    if (t.seeds.size() < 32) {
      if (auto s = parse_schedule(e.schedule_json)) t.seeds.push_back(*s);
    }
  }
  if (auto best = store.best(w.key, device_key); best && best->measurement.median_ns) {
    t.summary.best_ns = *best->measurement.median_ns;
    measurer.note_incumbent(w.key, t.summary.best_ns);
    t.progress.best_ns.push_back(t.summary.best_ns);
  }
  t.seeds.push_back(heuristic);
  t.seeds.push_back(t.space->naive());
  t.strip_variants = t.space->strip_variants();
  // The same algorithm tuned at other shapes.
  for (const db::WorkloadRecord& other : store.workloads_in_family(w.family_key)) {
    if (other.key == w.key) continue;
    t.family_keys.push_back(other.key);
    for (const db::BestEntry& e : store.top_k(other.key, device_key, 4)) {
      if (auto s = parse_schedule(e.schedule_json)) t.seeds.push_back(*s);
    }
  }
}

// A round's proposals for task `t`: the heuristic first if it was never measured, and its
// strip variants never measured (in its first round), then the evolutionary search's picks,
// or fresh random samples for a random-search run (and for a round whose search failed: the
// model or the features must not end an overnight run).
std::vector<Proposal> propose_round(Task& t, const SearchParams& params, const cost_model::CostModel& scorer,
                                    scheduler::Rng& rng, Progress& progress) {
  EvolutionarySearch search(*t.space, *t.features, params);
  std::vector<Proposal> proposals;
  // The heuristic passes the validators every other path applies (bench, space, measure), so
  // that tune never stores a schedule they refuse.
  if (!t.measured.count(t.heuristic_hash)) {
    Schedule heuristic = t.space->heuristic();
    if (!t.space->validate(heuristic)) {
      proposals.push_back({std::move(heuristic), std::numeric_limits<double>::quiet_NaN(), false});
    }
  }
  for (Schedule& variant : t.strip_variants) {
    if (!t.measured.count(variant.hash())) proposals.push_back({std::move(variant), std::numeric_limits<double>::quiet_NaN(), false});
  }
  t.strip_variants.clear();
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
  // A search that scored nothing before its time ran out (a deep pipeline's draws) leaves the
  // round to random samples; only a space with nothing new left ends the task.
  if (!random_round && searched.empty()) random_round = true;
  if (random_round) {
    add_random_proposals(t, params, rng, proposals);
  } else {
    std::set<std::string> first{t.heuristic_hash};
    for (const Proposal& p : proposals) first.insert(p.schedule.hash());
    for (Proposal& p : searched) {
      if (!first.count(p.schedule.hash())) proposals.push_back(std::move(p));
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
  if (r.build_ms > 0) record.build_s += r.build_ms / 1000;
  if (r.run_wall_ms > 0) record.run_s += r.run_wall_ms / 1000;
  if (r.ok()) {
    ++record.ok;
    ++t.summary.ok_this_run;
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

}  // namespace ktune::search::internal
