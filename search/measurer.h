// Where a tuning run's candidates are built and timed. The Tuner submits rounds of one
// subgraph each and collects them in order, committing each result as it arrives, so the
// database stays the only record and its writer the only process that writes it.
// LocalMeasurer (search/local_measurer.h) builds on this machine's cores and times each
// candidate alone, one round at a time; cluster/'s MPI measurer sends rounds to measuring
// ranks on other machines and takes the next round while one is measured (depth 2), so
// the search runs while the ranks measure.
//
//   measurer.submit(round);                  // up to depth() rounds not collected
//   measurer.collect(stop, on_result);       // the oldest submitted round's results
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure_result.h"
#include "scheduler/analysis.h"
#include "scheduler/schedule.h"
#include "targets/device.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::search {

// Who timed a result: the host and the MPI rank (0 without MPI), and the device key the
// rank measured on (empty: the run's device).
struct Provenance {
  std::string host;
  int rank = 0;
  std::string device_key;
};

// One candidate of a round.
struct MeasureItem {
  std::string schedule_hash;    // its identity in the database
  scheduler::Schedule schedule;
  std::string label;            // "predicted" or "random", for logs
};

// One round of one subgraph.
struct MeasureRound {
  const subgraphs::Subgraph* subgraph = nullptr;  // the algorithm; outlives the call
  const scheduler::Analysis* analysis = nullptr;  // its analysis (names the schedules' Funcs)
  std::string workload_key;
  std::vector<MeasureItem> items;
  // The best median so far (-1: none): a first timing that beats it is confirmed by more
  // runs before it counts, so one lucky timing cannot become the best.
  double incumbent_ns = -1;
  // The schedule that holds incumbent_ns, when the measurer may time it again: a challenger
  // is then confirmed in turns with it, and its new timing is reported as item
  // items.size(). Absent: the challenger's confirming runs are timed alone.
  std::optional<MeasureItem> incumbent;
  // No build starts after this time, so that a time budget holds.
  std::optional<std::chrono::steady_clock::time_point> start_before;
};

// Called once per measured item (its index in MeasureRound::items), on the caller's thread,
// in the order results arrive; returning false ends the round (what is left unmeasured is
// not reported). Index items.size() is MeasureRound::incumbent timed again beside a
// challenger, reported just before that challenger.
using ResultFn = std::function<bool(size_t item, const measure::MeasureResult& result, const Provenance& who)>;

class Measurer {
 public:
  virtual ~Measurer() = default;
  // How many candidates a round should carry for every one a single machine measures: 1
  // here, the number of measuring ranks with MPI (no rank idles while the search runs).
  virtual int width() const { return 1; }
  // Makes `subgraph`'s seeded inputs and reference where it will be measured; returns why
  // they could not be made (then it cannot be tuned), or empty.
  virtual std::string prepare(const subgraphs::Subgraph& subgraph) = 0;
  // A best median measured before (the database's) for `workload_key`: runs much slower
  // than it are cut short.
  virtual void note_incumbent(const std::string& workload_key, double median_ns) = 0;
  // Builds and times the round's items, reporting each through `on_result`; stops early
  // once `stop` is set. Never throws for anything a candidate does.
  virtual void measure(const MeasureRound& round, const std::atomic<int>& stop, const ResultFn& on_result) = 0;

  // How many submitted rounds may wait to be collected: 1 (measured when collected) unless
  // the measuring happens elsewhere while this process searches.
  virtual int depth() const { return 1; }
  // Hands over a round to measure; at most depth() rounds may be submitted and not collected.
  // By default the round is kept and measured when it is collected.
  virtual void submit(MeasureRound round);
  // The results of the oldest round submitted and not collected, as measure() reports them.
  virtual void collect(const std::atomic<int>& stop, const ResultFn& on_result);
  // Waits for work still in flight (compiles a deadline abandoned) before the run ends.
  virtual void finish() {}
  // Devices other than the run's that results may come from (ranks on other machines,
  // allowed by the user); their results are stored under their own device.
  virtual std::vector<targets::Device> other_devices() const { return {}; }

 private:
  std::deque<MeasureRound> waiting_;  // submitted, measured when collected (the default)
};

}  // namespace ktune::search
