// Tests cluster/messages.cc: every message survives encoding, and a malformed one is
// refused (nullopt), never half-read.
#include "cluster/messages.h"

#include <gtest/gtest.h>

#include <chrono>

#include "targets/host_detect.h"

namespace ktune::cluster {
namespace {

TEST(Messages, EachRoundTrips) {
  const Hello hello{3, "node7", targets::detect_host_device()};
  const auto h = decode_hello(encode(hello));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->rank, 3);
  EXPECT_EQ(h->host, "node7");
  EXPECT_EQ(targets::device_key(h->device), targets::device_key(hello.device));

  const auto w = decode_workload(encode(WorkloadMessage{"k1", "softmax", R"({"ops": []})"}));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->spec, R"({"ops": []})");

  Batch batch{7, "k1", 1234.5, 1.7e12, {{0, "h0", R"({"funcs":[]})", "predicted"}, {5, "h5", "{}", "random"}}, std::nullopt};
  const auto b = decode_batch(encode(batch));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->batch, 7);
  EXPECT_EQ(b->incumbent_ns, 1234.5);
  EXPECT_EQ(b->start_before_unix_ms, 1.7e12);
  ASSERT_EQ(b->items.size(), 2u);
  EXPECT_EQ(b->items[1].id, 5);
  EXPECT_EQ(b->items[1].schedule_hash, "h5");
  EXPECT_EQ(b->items[0].schedule_json, R"({"funcs":[]})");
  EXPECT_FALSE(b->incumbent.has_value()) << "a round without a stored best names none";
  batch.incumbent = BatchItem{kIncumbentItem, "hbest", R"({"funcs":[1]})", "incumbent"};
  const auto with_best = decode_batch(encode(batch));
  ASSERT_TRUE(with_best.has_value() && with_best->incumbent.has_value());
  EXPECT_EQ(with_best->incumbent->id, kIncumbentItem);
  EXPECT_EQ(with_best->incumbent->schedule_hash, "hbest");
  EXPECT_EQ(with_best->incumbent->schedule_json, R"({"funcs":[1]})");

  measure::MeasureResult r;
  r.status = measure::MeasureStatus::kWrongResult;
  r.message = "max error 0.5";
  r.max_error = 0.5;
  r.build_ms = 321;
  const auto res = decode_result(encode(ResultMessage{7, 5, r}));
  ASSERT_TRUE(res.has_value());
  EXPECT_EQ(res->id, 5);
  EXPECT_EQ(res->result.status, measure::MeasureStatus::kWrongResult);
  EXPECT_EQ(res->result.message, "max error 0.5");
  EXPECT_EQ(res->result.build_ms, 321);

  EXPECT_EQ(decode_batch_done(encode(BatchDone{7}))->batch, 7);
  EXPECT_EQ(decode_stop(encode(Stop{"refused: other device"}))->reason, "refused: other device");
}

TEST(Messages, ADeadlineTravelsAsWallClockTimeAndComesBackToTheSameInstant) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  const double wall = unix_ms(deadline);
  const double now = std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(wall - now, 90000, 50);
  const auto back = steady_time(wall);
  EXPECT_LT(std::chrono::abs(back - deadline), std::chrono::milliseconds(5));
}

TEST(Messages, MalformedOnesAreRefused) {
  EXPECT_FALSE(decode_batch("not json").has_value());
  EXPECT_FALSE(decode_batch("[1, 2]").has_value());
  EXPECT_FALSE(decode_batch(R"({"batch": 1, "workload": "k"})").has_value()) << "missing fields";
  EXPECT_FALSE(decode_result(R"({"batch": 1, "id": 2, "result": {"status": "fine"}})").has_value());
  EXPECT_FALSE(decode_hello(R"({"rank": "one", "host": "h", "device": {}})").has_value());
  EXPECT_FALSE(decode_stop(R"({"reason": 3})").has_value());
}

}  // namespace
}  // namespace ktune::cluster
