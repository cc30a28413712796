#include "cluster/coordinator_measurer.h"

#include <algorithm>
#include <chrono>

#include "cluster/dispatch.h"
#include "common/error.h"
#include "schedule_store/db_records.h"
#include "subgraphs/subgraph.h"

namespace ktune::cluster {
namespace {

BatchItem batch_item(int id, const search::MeasureItem& item) {
  return {id, item.schedule_hash, item.schedule.to_json().dump(), item.label};
}

}  // namespace

CoordinatorMeasurer::CoordinatorMeasurer(Transport& transport, CoordinatorOptions options)
    : transport_(transport),
      options_(std::move(options)),
      device_key_(targets::device_key(options_.device)),
      references_(options_.local) {
  greet();
  if (ranks_.empty()) {
    std::string why;
    for (const std::string& r : refusals_) why += "\n  " + r;
    throw UserError("no measuring rank is left to tune with" + why);
  }
}

// Every rank but this one says hello once, first; a rank on another device is told to stop
// unless mixed devices are allowed.
void CoordinatorMeasurer::greet() {
  for (int heard = 1; heard < transport_.size();) {
    const Transport::Received m = transport_.receive();
    if (m.tag != Tag::kHello) continue;
    ++heard;
    const auto hello = decode_hello(m.text);
    if (!hello) {
      refusals_.push_back("rank " + std::to_string(m.from) + ": its hello could not be read");
      transport_.send(m.from, Tag::kStop, encode(Stop{"refused: its hello could not be read"}));
      continue;
    }
    RankInfo info{m.from, hello->host, hello->device, targets::device_key(hello->device)};
    if (info.device_key != device_key_ && !options_.allow_mixed_devices) {
      const std::string why = "rank " + std::to_string(m.from) + " on " + info.host + " measures on device " +
                              info.device_key + " (" + targets::short_name(info.device) + "), rank 0 on " +
                              device_key_ + " (" + targets::short_name(options_.device) +
                              "); timings of different devices do not mix under one key (--allow-mixed-devices "
                              "stores each under its own)";
      refusals_.push_back(why);
      transport_.send(m.from, Tag::kStop, encode(Stop{"refused: " + why}));
      continue;
    }
    ranks_.push_back(info);
  }
  // Items are dealt in rank order, whatever order the hellos came in.
  std::sort(ranks_.begin(), ranks_.end(), [](const RankInfo& a, const RankInfo& b) { return a.rank < b.rank; });
}

std::string CoordinatorMeasurer::prepare(const subgraphs::Subgraph& subgraph) {
  const tuning_db::WorkloadRecord record = schedule_store::workload_record(subgraph);
  specs_[record.key] = record.spec;
  names_[record.key] = record.name;
  // The reference once here too: a subgraph whose reference cannot be computed is not sent.
  return references_.prepare(subgraph);
}

void CoordinatorMeasurer::note_incumbent(const std::string& workload_key, double median_ns) {
  references_.note_incumbent(workload_key, median_ns);
}

void CoordinatorMeasurer::send_workload(const std::string& key) {
  if (sent_.count(key)) return;
  const WorkloadMessage m{key, names_[key], specs_[key]};
  for (const RankInfo& r : ranks_) transport_.send(r.rank, Tag::kWorkload, encode(m));
  sent_.insert(key);
}

void CoordinatorMeasurer::measure(const search::MeasureRound& round, const std::atomic<int>& stop,
                                  const search::ResultFn& on_result) {
  submit(round);
  collect(stop, on_result);
}

// Deals the round's items to the ranks (dispatch.h) and sends each rank its batch. The time
// budget travels as wall-clock time: a batch that waits in a rank's queue behind the one
// before it must not start builds later than the coordinator allowed.
void CoordinatorMeasurer::submit(search::MeasureRound round) {
  send_workload(round.workload_key);
  std::vector<int> ranks;
  for (const RankInfo& r : ranks_) ranks.push_back(r.rank);
  SentRound sent{next_batch_++, Dispatch(static_cast<int>(round.items.size()), ranks), {}};
  sent.items = static_cast<int>(round.items.size());
  sent.has_incumbent = round.incumbent.has_value();
  double start_before_unix_ms = -1;
  if (round.start_before) start_before_unix_ms = unix_ms(*round.start_before);
  std::optional<BatchItem> incumbent;  // the same for every rank
  if (round.incumbent) incumbent = batch_item(kIncumbentItem, *round.incumbent);
  for (int rank : sent.dispatch.busy_ranks()) {
    Batch b{sent.batch, round.workload_key, round.incumbent_ns, start_before_unix_ms, {}, incumbent};
    for (int id : sent.dispatch.items_of(rank)) b.items.push_back(batch_item(id, round.items[static_cast<size_t>(id)]));
    transport_.send(rank, Tag::kBatch, encode(b));
  }
  sent_rounds_.push_back(std::move(sent));
}

void CoordinatorMeasurer::file(const Transport::Received& m) {
  if (m.tag == Tag::kBatchDone) {
    const auto done = decode_batch_done(m.text);
    for (SentRound& s : sent_rounds_) {
      if (done && done->batch == s.batch) s.dispatch.finish(m.from);
    }
  } else if (m.tag == Tag::kResult) {
    const auto result = decode_result(m.text);
    for (SentRound& s : sent_rounds_) {
      if (!result || result->batch != s.batch) continue;
      if (result->id == kIncumbentItem && s.has_incumbent) {
        s.arrived.push_back({s.items, result->result, m.from});  // reported after the round's items
      } else if (s.dispatch.complete(m.from, result->id)) {
        s.arrived.push_back({result->id, result->result, m.from});
      }
    }
  }
}

search::Provenance CoordinatorMeasurer::provenance(int rank) const {
  for (const RankInfo& r : ranks_) {
    if (r.rank == rank) return {r.host, r.rank, r.device_key == device_key_ ? "" : r.device_key};
  }
  return {"", rank, ""};
}

// Hands on the oldest round's results in the order they arrived; once the Tuner or a stop
// ends the round, the rest is received and dropped, so no rank is left with a full channel.
void CoordinatorMeasurer::collect(const std::atomic<int>& stop, const search::ResultFn& on_result) {
  bool reporting = true;
  size_t reported = 0;
  for (;;) {
    SentRound& oldest = sent_rounds_.front();
    for (; reported < oldest.arrived.size(); ++reported) {
      reporting = reporting && stop.load() == 0;
      if (!reporting) continue;
      const SentRound::Arrived& e = oldest.arrived[reported];
      reporting = on_result(static_cast<size_t>(e.item), e.result, provenance(e.rank));
    }
    if (oldest.dispatch.done()) break;
    file(transport_.receive());
  }
  sent_rounds_.pop_front();
}

CoordinatorMeasurer::~CoordinatorMeasurer() {
  try {
    finish();
  } catch (...) {  // nothing may leave a destructor; the launcher ends the job anyway
  }
}

void CoordinatorMeasurer::finish() {
  if (finished_) return;
  finished_ = true;
  for (const RankInfo& r : ranks_) transport_.send(r.rank, Tag::kStop, encode(Stop{}));
  references_.finish();
}

std::vector<targets::Device> CoordinatorMeasurer::other_devices() const {
  std::vector<targets::Device> out;
  std::set<std::string> seen;
  for (const RankInfo& r : ranks_) {
    if (r.device_key != device_key_ && seen.insert(r.device_key).second) out.push_back(r.device);
  }
  return out;
}

}  // namespace ktune::cluster
