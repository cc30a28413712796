#include "search/local_measurer.h"

#include "measure/builder.h"
#include "measure/retime.h"
#include "scheduler/apply.h"

namespace ktune::search {

LocalMeasurer::LocalMeasurer(LocalMeasurerOptions options)
    : options_(std::move(options)), runner_(options_.run) {}

std::string LocalMeasurer::prepare(const subgraphs::Subgraph& subgraph) { return runner_.reference_error(subgraph); }

void LocalMeasurer::note_incumbent(const std::string& workload_key, double median_ns) {
  runner_.note_incumbent(workload_key, median_ns);
}

void LocalMeasurer::measure(const MeasureRound& round, const std::atomic<int>& stop, const ResultFn& on_result) {
  std::vector<measure::Candidate> candidates;
  for (const MeasureItem& item : round.items) {
    candidates.push_back({round.subgraph, item.schedule_hash, scheduler::make_applier(item.schedule, *round.analysis),
                          item.label});
  }
  measure::BuildOptions build;
  build.threads = options_.build_threads;
  build.target = options_.jit_target;
  build.start_before = round.start_before;
  const measure::BuildBatch batch = measure::build_candidates(candidates, build);
  double incumbent = round.incumbent_ns;
  const Provenance who{options_.host, options_.rank, ""};
  for (size_t i = 0; i < batch.candidates.size(); ++i) {
    if (stop.load() != 0) break;  // abandon the rest of the round; nothing is half-written
    if (batch.candidates[i].skipped) continue;
    measure::MeasureResult r = runner_.run(batch.candidates[i]);
    if (r.ok() && (incumbent < 0 || r.median_ns < incumbent)) {
      // One lucky timing must not become the best that tune prints and the database keeps.
      std::vector<measure::MeasureResult> runs{std::move(r)};
      for (int k = 0; k < kConfirmRuns; ++k) runs.push_back(runner_.run(batch.candidates[i]));
      r = measure::combine_rounds(runs);
      if (r.ok()) incumbent = incumbent < 0 ? r.median_ns : std::min(incumbent, r.median_ns);
    }
    if (!on_result(i, r, who)) break;
  }
}

void LocalMeasurer::finish() { measure::wait_for_late_builds(60000); }

}  // namespace ktune::search
