// The measurement of a tuning run on this machine: a round's candidates are compiled in
// parallel on every core (measure/builder.h), then each is run alone in a forked child,
// checked against the reference and timed (measure/runner.h); a first timing that beats
// the incumbent is timed twice more and the three combined.
#pragma once

#include <memory>
#include <string>

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
  LocalMeasurerOptions options_;
  measure::Runner runner_;
};

// A new best's first timing is confirmed by this many more runs, and all are combined.
inline constexpr int kConfirmRuns = 2;

}  // namespace ktune::search
