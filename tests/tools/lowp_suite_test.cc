// The low-precision suite (bench/suite_lowp/: bf16, f16 and quantized u8 × i8 subgraphs)
// the way a user runs it, with short budgets: every spec passes `ktune show --check`, tunes,
// exports into one library whose self-check program (compiled here with the system
// compiler) matches every kernel against its reference in its own type, and benches
// against oneDNN's bf16 and int8 kernels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::run_command;
using testing::run_ktune;

const char* kSpecs[] = {"mlp_gelu_bf16", "bmm_scores_bf16", "gemm_u8s8_requant", "conv3x3_u8s8_relu_requant",
                        "layernorm_f16"};

std::string spec(const std::string& name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite_lowp/" + name + ".json"; }

std::string all_specs() {
  std::string s;
  for (const char* name : kSpecs) s += " " + spec(name);
  return s;
}

TEST(LowPrecisionSuite, ChecksTunesExportsAndBenches) {
  for (const char* name : kSpecs) {
    const auto show = run_ktune("show " + spec(name) + " --check");
    EXPECT_EQ(show.exit_code, 0) << show.out;
    EXPECT_THAT(show.out, HasSubstr("check     ok")) << name;
  }
  const std::string db = testing::scratch_path("lowp.db");
  const auto tune = run_ktune("tune" + all_specs() + " --db " + db + " --trials 40 --threads 2");
  ASSERT_EQ(tune.exit_code, 0) << tune.out;

  // One library: each kernel checks itself against the seeded reference in its type.
  const fs::path out = testing::scratch_path("lowp_export");
  const auto exported = run_ktune("export --db " + db + " --workload" + all_specs() + " --out " + out.string() +
                                  " --test-data --format json");
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  EXPECT_EQ(fs::file_size(out / "test_data" / "ktune_gemm_u8s8_requant" / "A.u8"), 1024u * 1024);
  EXPECT_EQ(fs::file_size(out / "test_data" / "ktune_gemm_u8s8_requant" / "C.ref.u8"), 1024u * 1024);
  EXPECT_EQ(fs::file_size(out / "test_data" / "ktune_mlp_gelu_bf16" / "Y.ref.bf16"), 512u * 2048 * 2);
  std::ifstream header(out / "include" / "ktune_kernels.h");
  std::stringstream h;
  h << header.rdbuf();
  EXPECT_THAT(h.str(), HasSubstr("//   output C: u8 [1024, 1024]"));
  EXPECT_THAT(h.str(), HasSubstr("//   output y: f16 [4096, 768]"));
  const std::string test_data = (out / "test_data").string();
  const auto build = run_command("cd " + test_data + " && c++ -std=c++17 -O2 -I ../include check.cc ../libktune_kernels.a " +
                                 "-lpthread -ldl -o check 2>&1");
  ASSERT_EQ(build.exit_code, 0) << build.out;
  const auto check = run_command("cd " + test_data + " && ./check . 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_THAT(check.out, HasSubstr("0 of 5 kernels failed"));

  // oneDNN runs the bf16 and quantized subgraphs with the same post-ops, checked against
  // the same references; OpenBLAS says why it cannot.
  const auto bench = run_ktune("bench " + spec("bmm_scores_bf16") + " " + spec("conv3x3_u8s8_relu_requant") + " --db " +
                               db + " --threads 2 --methods ktune,openblas,onednn --rounds 1 --min-repeats 2 " +
                               "--repeat-min-ms 5 --roofline-trials 1 --format json");
  ASSERT_EQ(bench.exit_code, 0) << bench.out;
  const auto j = nlohmann::json::parse(bench.out.substr(bench.out.find('{')));
  ASSERT_EQ(j["subgraphs"].size(), 2u);
  for (const auto& sg : j["subgraphs"]) {
    for (const auto& row : sg["methods"]) {
      if (row["method"] == "onednn" || row["method"] == "ktune") EXPECT_EQ(row["status"], "ok") << row.dump();
      if (row["method"] == "openblas") EXPECT_THAT(row["detail"].get<std::string>(), HasSubstr("f32 only"));
    }
  }
  fs::remove_all(out);
  fs::remove(db);
}

}  // namespace
}  // namespace ktune
