// Tests cluster/coordinator_measurer.cc without MPI: ranks scripted in-process answer every
// batch at once. Two rounds in flight are each collected with their own results (the newer
// round's early results are kept, not lost or given to the older round), a stop drains the
// round without reporting it, the stored best goes to every rank and its timings come back
// after the round's items, and a rank on another device is refused or kept as asked.
#include "cluster/coordinator_measurer.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

#include "common/error.h"

namespace ktune::cluster {
namespace {

targets::Device device_with(const std::string& cpu_model) {
  targets::Device d;
  d.vendor = "AuthenticAMD";
  d.cpu_model = cpu_model;
  d.halide_target = "x86-64-linux-avx2";
  return d;
}

// Ranks 1..size-1; rank `odd_rank` (if any) is on another device. Every batch a rank is
// sent is answered with one ok result per item (median = batch * 1000 + item) and a batch
// done. receive() delivers the highest rank's answers first, so its second batch arrives
// before the lower ranks' first.
class ScriptedRanks : public Transport {
 public:
  ScriptedRanks(int size, int odd_rank) : size_(size) {
    for (int r = 1; r < size; ++r) {
      const Hello hello{r, "node" + std::to_string(r), device_with(r == odd_rank ? "other cpu" : "scripted cpu")};
      inbox_[r].push_back({r, Tag::kHello, encode(hello)});
    }
  }
  int rank() const override { return 0; }
  int size() const override { return size_; }

  void send(int to, Tag tag, const std::string& text) override {
    sent_.push_back({to, tag, text});
    if (tag != Tag::kBatch) return;
    const auto batch = decode_batch(text);
    ASSERT_TRUE(batch.has_value());
    if (batch->incumbent || time_a_stray_incumbent) {
      // The stored best timed beside the first challenger (median = batch * 1000 + 999).
      measure::MeasureResult best;
      best.median_ns = batch->batch * 1000 + 999;
      inbox_[to].push_back({to, Tag::kResult, encode(ResultMessage{batch->batch, kIncumbentItem, best})});
    }
    for (const BatchItem& item : batch->items) {
      measure::MeasureResult r;
      r.median_ns = batch->batch * 1000 + item.id;
      inbox_[to].push_back({to, Tag::kResult, encode(ResultMessage{batch->batch, item.id, r})});
    }
    inbox_[to].push_back({to, Tag::kBatchDone, encode(BatchDone{batch->batch})});
  }

  Received receive() override {
    for (auto it = inbox_.rbegin(); it != inbox_.rend(); ++it) {
      if (it->second.empty()) continue;
      Received m = it->second.front();
      it->second.pop_front();
      return m;
    }
    ADD_FAILURE() << "the coordinator waits for a message no rank will send";
    throw std::runtime_error("deadlock");
  }

  // Ranks answer with a timing of the stored best even when the batch names none.
  bool time_a_stray_incumbent = false;

  std::vector<Received> sent_to(int rank, Tag tag) const {
    std::vector<Received> out;
    for (const Received& m : sent_) {
      if (m.from == rank && m.tag == tag) out.push_back(m);
    }
    return out;
  }

 private:
  int size_;
  std::map<int, std::deque<Received>> inbox_;
  std::vector<Received> sent_;  // `from` holds the destination
};

search::MeasureRound round_of(int items) {
  search::MeasureRound round;
  round.workload_key = "k";
  for (int i = 0; i < items; ++i) round.items.push_back({"h" + std::to_string(i), scheduler::Schedule{}, "predicted"});
  return round;
}

CoordinatorOptions options(bool allow_mixed = false) {
  CoordinatorOptions o;
  o.device = device_with("scripted cpu");
  o.allow_mixed_devices = allow_mixed;
  return o;
}

struct Reported {
  size_t item;
  double median_ns;
  int rank;
  std::string host;
};

TEST(CoordinatorMeasurer, TwoRoundsInFlightAreEachCollectedWithTheirOwnResults) {
  ScriptedRanks ranks(3, -1);
  CoordinatorMeasurer coordinator(ranks, options());
  ASSERT_EQ(coordinator.width(), 2);
  ASSERT_EQ(coordinator.depth(), 2);
  coordinator.submit(round_of(4));  // batch 1
  coordinator.submit(round_of(4));  // batch 2: rank 2 answers it before rank 1 answers batch 1
  const std::atomic<int> no_stop{0};
  for (int batch : {1, 2}) {
    std::vector<Reported> got;
    coordinator.collect(no_stop, [&](size_t i, const measure::MeasureResult& r, const search::Provenance& who) {
      got.push_back({i, r.median_ns, who.rank, who.host});
      return true;
    });
    ASSERT_EQ(got.size(), 4u) << "batch " << batch;
    std::set<size_t> items;
    for (const Reported& g : got) {
      items.insert(g.item);
      EXPECT_EQ(g.median_ns, batch * 1000 + static_cast<double>(g.item)) << "a result of another round";
      EXPECT_EQ(g.rank, g.item % 2 == 0 ? 1 : 2) << "items are dealt in turn";
      EXPECT_EQ(g.host, "node" + std::to_string(g.rank));
    }
    EXPECT_EQ(items, (std::set<size_t>{0, 1, 2, 3}));
  }
  EXPECT_EQ(ranks.sent_to(1, Tag::kWorkload).size(), 1u) << "the workload is sent once";
}

TEST(CoordinatorMeasurer, AStopDrainsTheRoundWithoutReportingIt) {
  ScriptedRanks ranks(3, -1);
  CoordinatorMeasurer coordinator(ranks, options());
  const std::atomic<int> stop{1};
  int reported = 0;
  coordinator.measure(round_of(3), stop, [&](size_t, const measure::MeasureResult&, const search::Provenance&) {
    ++reported;
    return true;
  });
  EXPECT_EQ(reported, 0);
  const std::atomic<int> no_stop{0};
  coordinator.measure(round_of(2), no_stop, [&](size_t, const measure::MeasureResult& r, const search::Provenance&) {
    EXPECT_GE(r.median_ns, 2000) << "the stopped round's results were drained, not left for this one";
    ++reported;
    return reported < 1;  // the Tuner ends the round after one result
  });
  EXPECT_EQ(reported, 1);
  coordinator.finish();
  EXPECT_EQ(ranks.sent_to(1, Tag::kStop).size(), 1u);
  EXPECT_EQ(ranks.sent_to(2, Tag::kStop).size(), 1u);
}

TEST(CoordinatorMeasurer, ARankOnAnotherDeviceIsRefusedUnlessMixedDevicesAreAllowed) {
  ScriptedRanks refused(4, 3);
  CoordinatorMeasurer strict(refused, options());
  EXPECT_EQ(strict.width(), 2);
  ASSERT_EQ(strict.refusals().size(), 1u);
  EXPECT_NE(strict.refusals()[0].find("rank 3 on node3"), std::string::npos) << strict.refusals()[0];
  const auto stops = refused.sent_to(3, Tag::kStop);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_NE(decode_stop(stops[0].text)->reason.find("refused"), std::string::npos);
  EXPECT_TRUE(strict.other_devices().empty());

  ScriptedRanks mixed(4, 3);
  CoordinatorMeasurer allowed(mixed, options(true));
  EXPECT_EQ(allowed.width(), 3);
  ASSERT_EQ(allowed.other_devices().size(), 1u);
  EXPECT_EQ(targets::device_key(allowed.other_devices()[0]), targets::device_key(device_with("other cpu")));
}

TEST(CoordinatorMeasurer, TheStoredBestGoesToEveryRankAndItsTimingsComeBackAfterTheItems) {
  ScriptedRanks ranks(3, -1);
  CoordinatorMeasurer coordinator(ranks, options());
  search::MeasureRound round = round_of(4);
  round.incumbent = search::MeasureItem{"hbest", scheduler::Schedule{}, "incumbent"};
  coordinator.submit(round);
  for (int rank : {1, 2}) {
    const auto batches = ranks.sent_to(rank, Tag::kBatch);
    ASSERT_EQ(batches.size(), 1u);
    const auto batch = decode_batch(batches[0].text);
    ASSERT_TRUE(batch && batch->incumbent) << "rank " << rank;
    EXPECT_EQ(batch->incumbent->schedule_hash, "hbest");
  }
  const std::atomic<int> no_stop{0};
  std::multiset<size_t> items;
  coordinator.collect(no_stop, [&](size_t i, const measure::MeasureResult& r, const search::Provenance&) {
    items.insert(i);
    if (i == 4) {
      EXPECT_EQ(r.median_ns, 1999);
    }
    return true;
  });
  EXPECT_EQ(items, (std::multiset<size_t>{0, 1, 2, 3, 4, 4})) << "each rank's timing of the stored best is item 4";

  // A round that named no stored best takes no timing of one.
  ranks.time_a_stray_incumbent = true;
  coordinator.submit(round_of(4));
  items.clear();
  coordinator.collect(no_stop, [&](size_t i, const measure::MeasureResult&, const search::Provenance&) {
    items.insert(i);
    return true;
  });
  EXPECT_EQ(items, (std::multiset<size_t>{0, 1, 2, 3}));
}

TEST(CoordinatorMeasurer, NoRankLeftIsAnError) {
  ScriptedRanks only_odd(2, 1);
  EXPECT_THROW(CoordinatorMeasurer(only_odd, options()), UserError);
}

}  // namespace
}  // namespace ktune::cluster
