// Tests of bench/bench_table.cc: the ratio convention, geometric means over the
// subgraphs where both methods are ok, and failures shown rather than hidden.
#include "bench/bench_table.h"

#include <gtest/gtest.h>

namespace ktune::bench {
namespace {

MethodRow ok_row(const std::string& method, double median_ns) {
  MethodRow r;
  r.method = method;
  r.status = "ok";
  r.result.median_ns = median_ns;
  r.result.min_ns = median_ns;
  r.result.spread_ns = 0;
  return r;
}

MethodRow failed_row(const std::string& method, const std::string& status, const std::string& detail) {
  MethodRow r;
  r.method = method;
  r.status = status;
  r.result.status = measure::MeasureStatus::kCrash;
  r.detail = detail;
  return r;
}

BenchReport sample_report() {
  BenchReport report;
  report.threads = 2;
  report.rounds = 3;
  SubgraphBench a;
  a.name = "gemm";
  a.roofline_ns = 500;
  a.rows = {ok_row("ktune", 1000), ok_row("Adams2019", 2000), ok_row("onednn", 500)};
  SubgraphBench b;
  b.name = "softmax";
  b.roofline_ns = 100;
  b.rows = {ok_row("ktune", 100), ok_row("Adams2019", 800), failed_row("Li2018", "crash", "Li2018 crashed: Segmentation fault")};
  SubgraphBench c;
  c.name = "blur";
  c.roofline_ns = 100;
  c.rows = {failed_row("ktune", "unsupported", "not tuned"), ok_row("Adams2019", 300)};
  report.subgraphs = {a, b, c};
  return report;
}

TEST(BenchTable, RatioIsMethodOverKtuneOnlyWhenBothAreOk) {
  const BenchReport report = sample_report();
  EXPECT_DOUBLE_EQ(*ktune_ratio(report.subgraphs[0], "Adams2019"), 2.0);
  EXPECT_DOUBLE_EQ(*ktune_ratio(report.subgraphs[0], "onednn"), 0.5);
  EXPECT_FALSE(ktune_ratio(report.subgraphs[1], "Li2018"));
  EXPECT_FALSE(ktune_ratio(report.subgraphs[2], "Adams2019"));  // ktune not tuned
}

TEST(BenchTable, GeometricMeanOverSubgraphsWithARatio) {
  const auto means = geomean_ratios(sample_report());
  ASSERT_EQ(means.count("Adams2019"), 1u);
  EXPECT_NEAR(means.at("Adams2019").first, 4.0, 1e-12);  // sqrt(2 * 8)
  EXPECT_EQ(means.at("Adams2019").second, 2);
  EXPECT_EQ(means.count("Li2018"), 0u);
  EXPECT_EQ(means.count("ktune"), 0u);
}

TEST(BenchTable, MarkdownShowsCellsNotTunedAndFailures) {
  const std::string md = format_markdown(sample_report(), "ktune bench a.json --db t.db");
  EXPECT_NE(md.find("ktune bench a.json --db t.db"), std::string::npos) << md;
  EXPECT_NE(md.find("| gemm | 0.0005 | 0.001 (50%) | 0.002 (25%) 2.00x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| blur | 0.0001 | not tuned |"), std::string::npos) << md;
  EXPECT_NE(md.find("- softmax / Li2018: crash: Li2018 crashed"), std::string::npos) << md;
  EXPECT_NE(md.find("4.00x (n=2)"), std::string::npos) << md;
}

TEST(BenchTable, JsonCarriesEveryRow) {
  const nlohmann::json j = to_json(sample_report(), "cmd", "uuid-1");
  EXPECT_EQ(j["bench_uuid"], "uuid-1");
  ASSERT_EQ(j["subgraphs"].size(), 3u);
  EXPECT_EQ(j["subgraphs"][1]["methods"][2]["status"], "crash");
  EXPECT_TRUE(j["subgraphs"][1]["methods"][2]["ratio"].is_null());
  EXPECT_DOUBLE_EQ(j["subgraphs"][0]["methods"][1]["roofline_fraction"].get<double>(), 0.25);
  EXPECT_NEAR(j["geomean_ratios"]["Adams2019"]["ratio"].get<double>(), 4.0, 1e-12);
}

// A noisy machine slows the median; the fastest run is held to the roofline as the peak,
// the fastest of its trials, is.
TEST(BenchTable, TheRooflineShareOfTheFastestRunBesideTheMedians) {
  BenchReport report = sample_report();
  report.subgraphs[0].rows[0].result.min_ns = 625;  // median 1000 against a 500 ns roofline
  const nlohmann::json j = to_json(report, "cmd", "uuid-1");
  EXPECT_DOUBLE_EQ(j["subgraphs"][0]["methods"][0]["roofline_fraction"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["subgraphs"][0]["methods"][0]["roofline_fraction_of_min"].get<double>(), 0.8);
  EXPECT_TRUE(j["subgraphs"][1]["methods"][2]["roofline_fraction_of_min"].is_null()) << "a crash has no fastest run";
  const std::string text = format_text(report);
  EXPECT_NE(text.find("(of min)"), std::string::npos) << text;
  const size_t ktune_row = text.find("  ktune ");
  ASSERT_NE(ktune_row, std::string::npos) << text;
  const std::string row = text.substr(ktune_row, text.find('\n', ktune_row) - ktune_row);
  EXPECT_NE(row.find(" 50% "), std::string::npos) << row;
  EXPECT_NE(row.find(" 80% "), std::string::npos) << row;
}

}  // namespace
}  // namespace ktune::bench
