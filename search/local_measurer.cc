#include "search/local_measurer.h"

#include "measure/retime.h"
#include "scheduler/apply.h"

namespace ktune::search {
namespace {

measure::Candidate candidate_of(const MeasureRound& round, const MeasureItem& item) {
  return {round.subgraph, item.schedule_hash, scheduler::make_applier(item.schedule, *round.analysis), item.label};
}

// A first timing that beats the incumbent so far (or that has none) is confirmed before it counts.
bool beats(const measure::MeasureResult& r, double incumbent_ns) {
  return r.ok() && (incumbent_ns < 0 || r.median_ns < incumbent_ns);
}

// A failure measured while a stop was requested says nothing of the candidate: the stop may
// have killed its run (or refused to start it). It is not reported, so it is measured again
// by the next run.
bool ended_by_stop(const measure::MeasureResult& r, const std::atomic<int>& stop) {
  return !r.ok() && stop.load() != 0;
}

}  // namespace

LocalMeasurer::LocalMeasurer(LocalMeasurerOptions options)
    : options_(std::move(options)), runner_(options_.run) {}

std::string LocalMeasurer::prepare(const subgraphs::Subgraph& subgraph) { return runner_.reference_error(subgraph); }

void LocalMeasurer::note_incumbent(const std::string& workload_key, double median_ns) {
  runner_.note_incumbent(workload_key, median_ns);
}

void LocalMeasurer::measure(const MeasureRound& round, const std::atomic<int>& stop, const ResultFn& on_result) {
  std::vector<measure::Candidate> candidates;
  for (const MeasureItem& item : round.items) candidates.push_back(candidate_of(round, item));
  measure::BuildOptions build;
  build.threads = options_.build_threads;
  build.target = options_.jit_target;
  build.start_before = round.start_before;
  build.stop = &stop;
  stop_ = &stop;
  const measure::BuildBatch batch = measure::build_candidates(candidates, build);
  double incumbent = round.incumbent_ns;
  const Provenance who{options_.host, options_.rank, ""};
  for (size_t i = 0; i < batch.candidates.size(); ++i) {
    if (stop.load() != 0) break;  // abandon the rest of the round; nothing is half-written
    const measure::BuiltCandidate& challenger = batch.candidates[i];
    if (challenger.skipped) continue;
    measure::MeasureResult r = runner_.run(challenger);
    std::optional<measure::MeasureResult> retimed;
    // One lucky timing must not become the best that tune prints and the database keeps.
    if (beats(r, incumbent)) r = confirm(round, challenger, std::move(r), retimed);
    if (ended_by_stop(r, stop)) break;
    bool go_on = true;
    if (retimed) {
      go_on = on_result(round.items.size(), *retimed, who);
      if (beats(*retimed, incumbent)) incumbent = retimed->median_ns;
      // Faster than the incumbent in the same minutes: most likely the next incumbent.
      if (beats(r, retimed->median_ns)) keep_incumbent(round.workload_key, challenger);
    }
    if (beats(r, incumbent)) incumbent = r.median_ns;
    go_on = on_result(i, r, who) && go_on;
    if (!go_on) break;
  }
}

measure::MeasureResult LocalMeasurer::confirm(const MeasureRound& round, const measure::BuiltCandidate& challenger,
                                              measure::MeasureResult first,
                                              std::optional<measure::MeasureResult>& incumbent_result) {
  const measure::BuiltCandidate* incumbent = built_incumbent(round);
  // C I C I C I: each confirming run of the challenger between two of the incumbent, and
  // as many runs of each (the challenger's first is the one that beat the incumbent).
  std::vector<measure::MeasureResult> runs{std::move(first)}, incumbent_runs;
  for (int k = 0; k < kConfirmRuns; ++k) {
    if (incumbent) incumbent_runs.push_back(runner_.run(*incumbent));
    runs.push_back(runner_.run(challenger));
  }
  if (incumbent) incumbent_runs.push_back(runner_.run(*incumbent));
  if (!incumbent_runs.empty()) {
    measure::MeasureResult combined = measure::combine_rounds(incumbent_runs);
    combined.build_ms = -1;  // built before, for an earlier round
    if (combined.ok()) incumbent_result = std::move(combined);
  }
  return measure::combine_rounds(runs);
}

const measure::BuiltCandidate* LocalMeasurer::built_incumbent(const MeasureRound& round) {
  if (!round.incumbent) return nullptr;
  const std::string& hash = round.incumbent->schedule_hash;
  std::deque<measure::BuiltCandidate>& kept = incumbents_[round.workload_key];
  for (const measure::BuiltCandidate& b : kept) {
    if (b.candidate.schedule_hash == hash) return &b;
  }
  measure::BuildOptions build;
  build.threads = 1;
  build.target = options_.jit_target;
  build.start_before = round.start_before;
  build.stop = stop_;
  measure::BuildBatch one = measure::build_candidates({candidate_of(round, *round.incumbent)}, build);
  measure::BuiltCandidate& built = one.candidates.front();
  if (!built.build.ok() || !built.kernel) return nullptr;
  keep_incumbent(round.workload_key, std::move(built));
  return &kept.front();
}

void LocalMeasurer::keep_incumbent(const std::string& workload_key, measure::BuiltCandidate built) {
  // `built` is never kept already: it was not found there, or it is a new challenger.
  std::deque<measure::BuiltCandidate>& kept = incumbents_[workload_key];
  kept.push_front(std::move(built));
  if (kept.size() > kKeptIncumbents) kept.pop_back();
}

void LocalMeasurer::finish() {
  // A stopped run ends now: a compile it abandoned has nothing left to disturb.
  const bool stopping = stop_ && stop_->load() != 0;
  measure::wait_for_late_builds(stopping ? 0 : 60000);
}

}  // namespace ktune::search
