// The messages of a distributed tuning run: what the coordinator (rank 0, the only
// database writer) and the measuring ranks say to each other, as JSON text with a tag.
// Encoding and decoding are plain functions, so they are tested without MPI; a malformed
// message decodes to nullopt and is logged, never trusted.
//
//   rank k  -> 0   kHello     its host and device
//   0       -> k   kWorkload  a subgraph to measure (its stored spec), once per rank
//   0       -> k   kBatch     candidates of one workload
//   rank k  -> 0   kResult    one candidate's result, as it finishes (or the stored best's
//                              new timing, beside a challenger that beat it)
//   rank k  -> 0   kBatchDone the batch is done (its unmeasured items were skipped)
//   0       -> k   kStop      the run is over (or the rank is refused: its device differs)
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure_result.h"
#include "targets/device.h"

namespace ktune::cluster {

enum class Tag : int { kHello = 1, kWorkload = 2, kBatch = 3, kResult = 4, kBatchDone = 5, kStop = 6 };

struct Hello {
  int rank = 0;
  std::string host;
  targets::Device device;  // what this rank measures on (its key is part of every result's row)
};

struct WorkloadMessage {
  std::string key;   // workload key
  std::string name;  // for messages
  std::string spec;  // the stored spec (schedule_store::workload_record): a spec's JSON, or a
                     // Generator's library, name and parameters
};

struct BatchItem {
  int id = 0;                 // the item's index in the coordinator's round
  std::string schedule_hash;
  std::string schedule_json;  // canonical schedule JSON
  std::string label;
};

// The item id of the stored best's new timing in a ResultMessage: it is not one of the
// batch's items.
inline constexpr int kIncumbentItem = -1;

struct Batch {
  int batch = 0;               // the coordinator's batch number
  std::string workload_key;
  double incumbent_ns = -1;    // the best median so far (-1: none): a faster first timing is confirmed
  double start_before_unix_ms = -1;  // no build may start after this wall-clock time (ms since the
                                     // Unix epoch; hosts keep their clocks in step); -1: any time
  std::vector<BatchItem> items;
  // The stored best's schedule (id kIncumbentItem), timed in turns with a challenger that
  // beats incumbent_ns; its timing comes back with id kIncumbentItem.
  std::optional<BatchItem> incumbent;
};

struct ResultMessage {
  int batch = 0;
  int id = 0;                      // BatchItem::id
  measure::MeasureResult result;
};

struct BatchDone {
  int batch = 0;
};

struct Stop {
  std::string reason;  // empty at the end of a run; why a rank was refused otherwise
};

// A deadline as wall-clock ms since the Unix epoch, and back: a steady-clock time point does
// not mean anything on another host.
double unix_ms(std::chrono::steady_clock::time_point t);
std::chrono::steady_clock::time_point steady_time(double unix_ms);

std::string encode(const Hello& m);
std::string encode(const WorkloadMessage& m);
std::string encode(const Batch& m);
std::string encode(const ResultMessage& m);
std::string encode(const BatchDone& m);
std::string encode(const Stop& m);

std::optional<Hello> decode_hello(const std::string& text);
std::optional<WorkloadMessage> decode_workload(const std::string& text);
std::optional<Batch> decode_batch(const std::string& text);
std::optional<ResultMessage> decode_result(const std::string& text);
std::optional<BatchDone> decode_batch_done(const std::string& text);
std::optional<Stop> decode_stop(const std::string& text);

}  // namespace ktune::cluster
