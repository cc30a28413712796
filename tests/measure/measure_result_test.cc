#include "measure/measure_result.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "measure/report_wire.h"

namespace ktune::measure {
namespace {

const MeasureStatus kAll[] = {MeasureStatus::kOk,         MeasureStatus::kRejected,   MeasureStatus::kBuildError,
                              MeasureStatus::kBuildTimeout, MeasureStatus::kCrash,      MeasureStatus::kRunTimeout,
                              MeasureStatus::kRuntimeError, MeasureStatus::kWrongResult};

TEST(MeasureResultTest, StatusNamesRoundTripAndAreDistinct) {
  std::set<std::string_view> names;
  for (MeasureStatus s : kAll) {
    names.insert(to_string(s));
    ASSERT_EQ(measure_status_from_string(to_string(s)), s) << to_string(s);
  }
  EXPECT_EQ(names.size(), std::size(kAll));
  EXPECT_EQ(to_string(MeasureStatus::kRunTimeout), "run_timeout");
  EXPECT_EQ(to_string(MeasureStatus::kWrongResult), "wrong_result");
  EXPECT_FALSE(measure_status_from_string("OK").has_value());
  EXPECT_FALSE(measure_status_from_string("").has_value());
}

TEST(MeasureResultTest, DescribeNamesStatusAndMessage) {
  MeasureResult r;
  r.status = MeasureStatus::kCrash;
  r.message = "Segmentation fault";
  EXPECT_EQ(describe(r), "crash: Segmentation fault");
  MeasureResult ok;
  ok.median_ns = 1.5e6;
  ok.min_ns = 1.4e6;
  ok.spread_ns = 1e4;
  ok.repeats = 12;
  ok.threads = 2;
  EXPECT_NE(describe(ok).find("median 1.5 ms"), std::string::npos) << describe(ok);
  EXPECT_NE(describe(ok).find("12 runs, 2 threads"), std::string::npos) << describe(ok);
}

TEST(MeasureResultTest, JsonRoundTripsEveryFieldAndRefusesAnUnknownStatus) {
  MeasureResult r;
  r.status = MeasureStatus::kWrongResult;
  r.message = "differs";
  r.signal = 11;
  r.max_error = 0.5;
  r.median_ns = 1234.5;
  r.min_ns = 1200;
  r.spread_ns = 7;
  r.repeats = 9;
  r.threads = 2;
  r.build_ms = 300;
  r.run_wall_ms = 40;
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("status"), "wrong_result");
  const MeasureResult back = measure_result_from_json(j);
  EXPECT_EQ(to_json(back), j);
  nlohmann::json bad = j;
  bad["status"] = "fine";
  EXPECT_THROW(measure_result_from_json(bad), std::invalid_argument);
  bad.erase("status");
  EXPECT_THROW(measure_result_from_json(bad), nlohmann::json::exception);
}

TEST(MeasureReportWireTest, RoundTripsEveryField) {
  MeasureResult r;
  r.status = MeasureStatus::kWrongResult;
  r.message = std::string("max relative error 1.0 \0 with a NUL", 35);
  r.max_error = 0.75;
  r.median_ns = 123.5;
  r.min_ns = 100;
  r.spread_ns = 7;
  r.repeats = 42;
  r.threads = 3;
  const std::optional<MeasureResult> back = decode_report(encode_report(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->status, r.status);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->max_error, r.max_error);
  EXPECT_EQ(back->median_ns, r.median_ns);
  EXPECT_EQ(back->min_ns, r.min_ns);
  EXPECT_EQ(back->spread_ns, r.spread_ns);
  EXPECT_EQ(back->repeats, r.repeats);
  EXPECT_EQ(back->threads, r.threads);
}

TEST(MeasureReportWireTest, RefusesTruncatedOrForeignBytes) {
  MeasureResult r;
  r.message = "hello";
  const std::string bytes = encode_report(r);
  EXPECT_FALSE(decode_report(bytes.substr(0, bytes.size() - 1)).has_value());
  EXPECT_FALSE(decode_report(bytes + "x").has_value());
  EXPECT_FALSE(decode_report("").has_value());
  std::string foreign = bytes;
  foreign[0] ^= 0x55;
  EXPECT_FALSE(decode_report(foreign).has_value());
}

}  // namespace
}  // namespace ktune::measure
