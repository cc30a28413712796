// The edge workflow for an Arm device ktune does not own, as a user runs it on an x86 build
// machine: `ktune bundle --device cortex-a76` cross-compiles the candidates of two suite
// specs and their runner, the runner checks every candidate under qemu-aarch64 and says it
// ran emulated, ingest refuses those times; `ktune export --device cortex-a76` writes an
// arm64 library whose check program, cross-compiled, passes under qemu.
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

std::string source(const std::string& path) { return std::string(KTUNE_SOURCE_DIR) + "/" + path; }

bool have(const std::string& program) { return run_command("command -v " + program + " >/dev/null").exit_code == 0; }

class CmdEdge : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have("aarch64-linux-gnu-g++") || !have("qemu-aarch64-static")) {
      GTEST_SKIP() << "needs Debian's g++-aarch64-linux-gnu and qemu-user-static (scripts/setup.sh installs them)";
    }
    dir_ = testing::scratch_path("edge");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_;
};

TEST_F(CmdEdge, AnArmBundleChecksEveryCandidateUnderQemuAndIngestRefusesItsTimes) {
  const std::string bundle = dir_ + "/bundle";
  const auto built = run_ktune("bundle " + source("bench/suite/dwconv3x3_relu.json") + " " +
                               source("bench/suite/layernorm.json") + " --device cortex-a76 --candidates 2 --out " +
                               bundle);
  ASSERT_EQ(built.exit_code, 0) << built.out;
  EXPECT_THAT(run_command("file " + bundle + "/run").out, HasSubstr("aarch64"));

  const auto ran = run_command("qemu-aarch64-static " + bundle + "/run --json > " + dir_ + "/results.json");
  ASSERT_EQ(ran.exit_code, 0) << "a candidate failed under emulation";
  std::ifstream in(dir_ + "/results.json");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json results = nlohmann::json::parse(text.str());
  EXPECT_EQ(results["emulated"], true);  // noticed without --emulated
  ASSERT_EQ(results["candidates"].size(), 4u);
  for (const auto& c : results["candidates"]) EXPECT_EQ(c["status"], "ok") << c.dump();

  const std::string db = dir_ + "/edge.db";
  const auto ingested = run_ktune("ingest " + dir_ + "/results.json --bundle " + bundle + " --db " + db);
  EXPECT_EQ(ingested.exit_code, 2) << ingested.out;
  EXPECT_THAT(ingested.out, HasSubstr("ran under an emulator"));
  EXPECT_FALSE(fs::exists(db));  // refused before the database was opened
}

TEST_F(CmdEdge, AnArmExportLinksWithTheCrossToolchainAndItsCheckPassesUnderQemu) {
  // A database tuned on this machine only: the Arm kernels fall back to the heuristic.
  const std::string db = dir_ + "/host.db";
  ASSERT_EQ(run_ktune("sample " + source("tests/data/tiny_softmax.json") + " --db " + db +
                      " --count 1 --min-repeats 1 --repeat-min-ms 1")
                .exit_code,
            0);
  const std::string lib = dir_ + "/lib";
  const auto exported = run_ktune("export --db " + db + " --device cortex-a76 --workload " +
                                  source("tests/data/tiny_matmul.json") + " --workload " +
                                  source("bench/suite/layernorm.json") + " --out " + lib + " --name edge --test-data");
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  const nlohmann::json manifest = nlohmann::json::parse(run_command("cat " + lib + "/manifest.json").out);
  EXPECT_EQ(manifest["halide_target"], "arm-64-linux-arm_dot_prod-arm_fp16");

  const auto linked = run_command("aarch64-linux-gnu-g++ -std=c++17 -O2 -static -I " + lib + "/include " + lib +
                                  "/test_data/check.cc " + lib + "/libedge.a -lpthread -ldl -o " + dir_ +
                                  "/check 2>&1");
  ASSERT_EQ(linked.exit_code, 0) << linked.out;
  const auto checked = run_command("qemu-aarch64-static " + dir_ + "/check " + lib + "/test_data 2>&1");
  EXPECT_EQ(checked.exit_code, 0) << checked.out;
  EXPECT_THAT(checked.out, HasSubstr("0 of 2 kernels failed"));
}

}  // namespace
}  // namespace ktune
