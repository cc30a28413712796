// `ktune sample` and `ktune model` as a user runs them: a small database filled by sample,
// a model trained and evaluated from it, and exit code 2 for bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

// Two tiny element-wise workloads, cheap to build and run.
std::string write_spec(const std::string& name, int n) {
  const std::string path = testing::scratch_path(name + ".json");
  std::ofstream(path) << R"({"name": ")" << name << R"(", "inputs": [{"name": "a", "shape": [)" << n
                      << R"(, 64]}, {"name": "b", "shape": [)" << n
                      << R"(, 64]}], "ops": [{"op": "add", "inputs": ["a", "b"], "output": "c"}], "outputs": ["c"]})";
  return path;
}

TEST(CmdModel, SampleThenTrainAndEvaluate) {
  const std::string db = testing::scratch_path("cmd_model_test.db");
  std::remove(db.c_str());
  const auto s = run_ktune("sample " + write_spec("tiny_add_a", 32) + " " + write_spec("tiny_add_b", 48) + " --db " + db +
                           " --count 5 --min-repeats 1 --repeat-min-ms 1");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  EXPECT_THAT(s.out, HasSubstr("tiny_add_a           measured    5"));
  EXPECT_THAT(s.out, HasSubstr("tiny_add_b           measured    5  ok    5"));
  // A second run measures 5 schedules the database does not hold yet, per subgraph.
  const auto again = run_ktune("sample " + write_spec("tiny_add_a", 32) + " --db " + db +
                               " --count 5 --min-repeats 1 --repeat-min-ms 1 --seed 2");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_THAT(again.out, HasSubstr("tiny_add_a           measured    5  ok    5"));

  const auto t = run_ktune("model train --rounds 10 --format json --db " + db);
  ASSERT_EQ(t.exit_code, 0) << t.out;
  // Progress lines on stderr come first; the JSON result is the rest.
  const nlohmann::json j = nlohmann::json::parse(t.out.substr(t.out.find('{')));
  EXPECT_EQ(j["kind"], "xgboost-rank");
  EXPECT_EQ(j["workloads"], 2);
  EXPECT_EQ(j["samples"].get<int>(), 15);  // ok measurements only: 10 of tiny_add_a, 5 of tiny_add_b

  const auto e = run_ktune("model eval --rounds 10 --db " + db);
  EXPECT_EQ(e.exit_code, 0) << e.out;
  EXPECT_THAT(e.out, HasSubstr("random split within workloads"));
  EXPECT_THAT(e.out, HasSubstr("whole workloads held out"));
  EXPECT_THAT(e.out, HasSubstr("analytical"));
  EXPECT_THAT(e.out, HasSubstr("noise ceiling: "));
  const auto ties = run_ktune("model eval --rounds 10 --tie-ratio 0.05 --format json --db " + db);
  ASSERT_EQ(ties.exit_code, 0) << ties.out;
  const nlohmann::json tj = nlohmann::json::parse(ties.out.substr(ties.out.find('{')));
  EXPECT_DOUBLE_EQ(tj["tie_ratio"].get<double>(), 0.05);
  // The ceiling covers the workloads where two schedules share their features.
  const nlohmann::json& ceiling = tj["noise_ceiling"];
  ASSERT_TRUE(ceiling["per_workload"].is_array());
  EXPECT_LE(ceiling["per_workload"].size(), 2u);
  for (const nlohmann::json& w : ceiling["per_workload"]) {
    EXPECT_GE(w["shared_rows"].get<int>(), 2);
    EXPECT_GE(w["pairwise_accuracy"].get<double>(), 0.5);
    EXPECT_LE(w["pairwise_accuracy"].get<double>(), 1.0);
  }
}

TEST(CmdModel, BadInputExitsWithTwo) {
  const std::string db = testing::scratch_path("cmd_model_empty.db");
  std::remove(db.c_str());
  auto r = run_ktune("model train --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no device with key"));
  r = run_ktune("model eval --db " + db + " --folds 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--folds"));
  r = run_ktune("model eval --db " + db + " --tie-ratio -0.1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--tie-ratio"));
  r = run_ktune("model --db " + db);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_ktune("sample " + write_spec("tiny_add_c", 8) + " --db " + db + " --count 0");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--count"));
  r = run_ktune("sample --db " + db + " /no/such/spec.json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(CmdModel, HelpListsTheSubcommands) {
  const auto r = run_ktune("model --help");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("train"));
  EXPECT_THAT(r.out, HasSubstr("eval"));
  const auto top = run_ktune("--help");
  EXPECT_THAT(top.out, HasSubstr("sample"));
  EXPECT_THAT(top.out, HasSubstr("model"));
}

}  // namespace
}  // namespace ktune
