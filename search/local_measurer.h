// The measurement of a tuning run on this machine: a round's candidates are compiled in
// parallel on every core (measure/builder.h), then each is run alone in a forked child,
// checked against the reference and timed (measure/runner.h); a first timing that beats
// the incumbent is timed twice more and the three combined. When the round names the
// incumbent's schedule, the incumbent is timed before and after each of those runs (three
// times): the speed of a shared machine drifts over minutes, so a challenger is judged
// against the incumbent's time in the same minutes. The database keeps each schedule's
// fastest measurement, so the new timing corrects an incumbent first timed in a slow
// minute; one first timed in a fast minute keeps that figure.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "measure/builder.h"
#include "measure/runner.h"
#include "search/measurer.h"

namespace ktune::search {

struct LocalMeasurerOptions {
  measure::RunOptions run;   // timing protocol, kernel threads, limits
  int build_threads = 0;     // concurrent compiles; 0 = every core
  std::string jit_target;    // empty: the host JIT target (measure::jit_target_for for a GPU)
  std::string host;          // reported as the provenance of every result
  int rank = 0;              // the same (a measuring MPI rank measures locally too)
};

class LocalMeasurer : public Measurer {
 public:
  explicit LocalMeasurer(LocalMeasurerOptions options);
  std::string prepare(const subgraphs::Subgraph& subgraph) override;
  void note_incumbent(const std::string& workload_key, double median_ns) override;
  void measure(const MeasureRound& round, const std::atomic<int>& stop, const ResultFn& on_result) override;
  void finish() override;

 private:
  // The runs that confirm `challenger`'s first timing `first`, combined: alone, or in turns
  // with the round's incumbent, whose combined runs then go to `incumbent_result`.
  measure::MeasureResult confirm(const MeasureRound& round, const measure::BuiltCandidate& challenger,
                                 measure::MeasureResult first, std::optional<measure::MeasureResult>& incumbent_result);
  // The round's incumbent compiled (built once per incumbent schedule and kept), or null
  // when the round names none, it does not build, or the round's start_before has passed.
  const measure::BuiltCandidate* built_incumbent(const MeasureRound& round);
  // Keeps `built` as the newest compiled incumbent of `workload_key`; the oldest beyond
  // kKeptIncumbents is dropped.
  void keep_incumbent(const std::string& workload_key, measure::BuiltCandidate built);

  // A challenger that wins its paired runs is kept, but the database only makes it the best
  // beyond its tie bands: the incumbent before it stays compiled too, for the next round.
  static constexpr size_t kKeptIncumbents = 2;

  LocalMeasurerOptions options_;
  measure::Runner runner_;
  // Compiled incumbents by workload key, the newest first. The kernels outlive their rounds;
  // the Subgraph and Analysis they point to live as long as the tuning run.
  std::map<std::string, std::deque<measure::BuiltCandidate>> incumbents_;
  // The stop flag of the last round measured: finish() does not wait for abandoned compiles
  // once it is set.
  const std::atomic<int>* stop_ = nullptr;
};

// A new best's first timing is confirmed by this many more runs, and all are combined.
inline constexpr int kConfirmRuns = 2;

}  // namespace ktune::search
