// The coordinator's side of a distributed tuning run (rank 0): a search::Measurer that
// deals each round's candidates to the measuring ranks, one batch per rank, and hands the
// results to the Tuner as they arrive, so rank 0 stays the only database writer. It takes
// a second round while one is measured (depth 2): each rank queues its next batch, so it
// does not wait while rank 0 searches and retrains; results of the newer round that arrive
// early are kept until that round is collected. At start
// it hears every rank's hello: a rank whose device differs from rank 0's is refused with
// its host and key (timings from different machines must not mix under one key), unless
// mixed devices are allowed, in which case its results are stored under its own device.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster/dispatch.h"
#include "cluster/transport.h"
#include "search/local_measurer.h"
#include "search/measurer.h"
#include "targets/device.h"

namespace ktune::cluster {

struct CoordinatorOptions {
  targets::Device device;             // the run's device (rank 0's)
  bool allow_mixed_devices = false;   // keep ranks on other devices, under their own keys
  search::LocalMeasurerOptions local; // how rank 0 computes references (one child per subgraph)
};

// A measuring rank as the coordinator knows it.
struct RankInfo {
  int rank = 0;
  std::string host;
  targets::Device device;
  std::string device_key;
};

class CoordinatorMeasurer : public search::Measurer {
 public:
  // Hears every rank's hello and refuses those on another device (see above). Throws
  // ktune::UserError when no measuring rank is left.
  CoordinatorMeasurer(Transport& transport, CoordinatorOptions options);
  // Tells the measuring ranks to stop if the run did not (it ended on an error).
  ~CoordinatorMeasurer() override;

  int width() const override { return static_cast<int>(ranks_.size()); }
  std::string prepare(const subgraphs::Subgraph& subgraph) override;
  void note_incumbent(const std::string& workload_key, double median_ns) override;
  void measure(const search::MeasureRound& round, const std::atomic<int>& stop, const search::ResultFn& on_result) override;
  int depth() const override { return 2; }
  void submit(search::MeasureRound round) override;
  void collect(const std::atomic<int>& stop, const search::ResultFn& on_result) override;
  void finish() override;
  std::vector<targets::Device> other_devices() const override;

  // The measuring ranks kept, and what was said of those refused (one line each).
  const std::vector<RankInfo>& ranks() const { return ranks_; }
  const std::vector<std::string>& refusals() const { return refusals_; }

 private:
  // A round sent to the ranks and not collected yet.
  struct SentRound {
    int batch = 0;
    Dispatch dispatch;
    // Its results in the order they arrived (item, result, rank), handed on when it is
    // collected; those of a newer round wait here while an older one is collected.
    struct Arrived {
      int item = 0;
      measure::MeasureResult result;
      int rank = 0;
    };
    std::vector<Arrived> arrived;
    int items = 0;                // the round's items: the stored best's timing is reported as item `items`
    bool has_incumbent = false;   // the round named the stored best, so ranks may time it
  };

  void greet();
  void send_workload(const std::string& key);
  // Files one message from a rank under its round (a stray one is dropped).
  void file(const Transport::Received& m);
  search::Provenance provenance(int rank) const;

  Transport& transport_;
  CoordinatorOptions options_;
  std::string device_key_;
  search::LocalMeasurer references_;
  std::vector<RankInfo> ranks_;
  std::vector<std::string> refusals_;
  std::map<std::string, std::string> specs_;   // workload key -> stored spec, as sent to ranks
  std::map<std::string, std::string> names_;   // workload key -> name
  std::set<std::string> sent_;                 // workloads every rank has
  std::deque<SentRound> sent_rounds_;          // oldest first
  int next_batch_ = 1;
  bool finished_ = false;
};

}  // namespace ktune::cluster
