// Tests of report/report_html.cc: the page holds the embedded assets and the data,
// and no workload name can close the data's <script> block or change what JSON.parse reads.
#include "report/report_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ktune::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PairReport pair_named(const std::string& name) {
  PairReport p;
  p.workload_name = name;
  p.workload_key = "wk";
  p.device_key = "dk";
  p.trials = 2;
  p.ok = 1;
  p.best_ns = 1500;
  p.curve = {{2, 0.5, 1500}};
  p.statuses = {{"ok", 1}, {"crash", 1}};
  p.bench = {{"ktune", "ok", 1500, 1.0, ""}, {"Li2018", "crash", 0, std::nullopt, "signal 11"}};
  return p;
}

TEST(ScriptSafeJson, EscapesWhatCouldEndTheScriptAndParsesBack) {
  const std::string hostile = "a</script><script>alert(1)</script>&<!--\xE2\x80\xA8";
  const nlohmann::json j = {{"name", hostile}, {"n", 3}};
  const std::string text = script_safe_json(j);
  EXPECT_THAT(text, Not(HasSubstr("<")));
  EXPECT_THAT(text, Not(HasSubstr(">")));
  EXPECT_THAT(text, Not(HasSubstr("&")));
  EXPECT_THAT(text, Not(HasSubstr("\xE2\x80\xA8")));
  EXPECT_THAT(text, HasSubstr("\\u003c/script\\u003e"));
  EXPECT_EQ(nlohmann::json::parse(text), j);
}

TEST(RenderReportHtml, FillsTheTemplateWithAssetsAndData) {
  ReportData data;
  data.database = "/tmp/x.db";
  data.pairs.push_back(pair_named("softmax</script><b>bold</b>"));
  const std::string page = render_report_html(data, "9.9.9");
  EXPECT_THAT(page, HasSubstr("<!DOCTYPE html>"));
  for (const char* placeholder : {"{{STYLE}}", "{{SCRIPT}}", "{{DATA}}"}) {
    EXPECT_THAT(page, Not(HasSubstr(placeholder)));
  }
  EXPECT_THAT(page, HasSubstr("svg.plot"));          // the stylesheet
  EXPECT_THAT(page, HasSubstr("data-drawn"));        // the script
  EXPECT_THAT(page, Not(HasSubstr("<b>bold</b>")));  // the name only as escaped JSON
  // Exactly the two </script> of the template: the data block's and the drawing script's.
  size_t closes = 0;
  for (size_t at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++closes;
  EXPECT_EQ(closes, 2u);

  const std::string open = "<script type=\"application/json\" id=\"ktune-report-data\">";
  const size_t begin = page.find(open);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  const auto parsed = nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
  EXPECT_EQ(parsed["ktune_version"], "9.9.9");
  EXPECT_EQ(parsed["pairs"][0]["workload"], "softmax</script><b>bold</b>");
  EXPECT_EQ(parsed["pairs"][0]["bench"]["bars"][1]["status"], "crash");
  EXPECT_TRUE(parsed["pairs"][0]["bench"]["bars"][1]["vs_ktune"].is_null());
  EXPECT_TRUE(parsed["pairs"][0]["first_ns"].is_null());
  EXPECT_EQ(parsed["pairs"][0]["curve"][0]["trial"], 2);
}

TEST(RenderReportHtml, NeedsNoNetwork) {
  const std::string page = render_report_html(ReportData{}, "0");
  // No external script, style sheet, font or image: nothing with a src or a link to fetch.
  EXPECT_THAT(page, Not(HasSubstr("src=")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("@import")));
  EXPECT_THAT(page, Not(HasSubstr("url(")));
  EXPECT_THAT(page, Not(HasSubstr("fetch(")));
}

}  // namespace
}  // namespace ktune::report
