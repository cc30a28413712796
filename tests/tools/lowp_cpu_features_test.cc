// Low precision on a CPU with VNNI and AVX512-BF16 but not all of Sapphire Rapids (an AMD
// EPYC): `ktune devices` says which instructions the CPU has and which ktune uses, kernels
// compiled for avx512_sapphirerapids run (LLVM leaves out AVX512-FP16 and AMX), and the
// guard holds: with that turned off (KTUNE_CODEGEN_ALL_FEATURES=1) a kernel that uses an
// instruction the CPU lacks dies with SIGILL in its isolated run, is recorded as a crash and
// never becomes a best; the best that did run is exported for exactly its device's target.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_command;
using testing::run_ktune;

std::string spec(const std::string& name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite_lowp/" + name + ".json"; }

bool cpu_has(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string word;
  while (in >> word) {
    if (word == flag) return true;
  }
  return false;
}

nlohmann::json host_entry() {
  const auto devices = run_ktune("devices --format json");
  EXPECT_EQ(devices.exit_code, 0) << devices.out;
  const nlohmann::json listed = nlohmann::json::parse(devices.out.substr(devices.out.find('{')));
  for (const auto& d : listed["devices"]) {
    if (d["name"] == "host") return d;
  }
  ADD_FAILURE() << "no host in " << devices.out;
  return {};
}

TEST(LowPrecisionCpuFeatures, DevicesSaysWhatTheCpuHasAndWhatIsUsed) {
  const nlohmann::json host = host_entry();
  if (host["device"]["halide_target"].get<std::string>().rfind("x86-", 0) != 0) GTEST_SKIP() << "not an x86 CPU";
  ASSERT_TRUE(host.contains("low_precision")) << host.dump();
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& isa : host["low_precision"]) by_name[isa["name"]] = isa;
  EXPECT_EQ(by_name["VNNI"]["cpu"], cpu_has("avx512_vnni"));
  EXPECT_EQ(by_name["AVX512-BF16"]["cpu"], cpu_has("avx512_bf16"));
  EXPECT_EQ(by_name["F16C"]["cpu"], cpu_has("f16c"));
  EXPECT_EQ(by_name["AVX512-FP16"]["cpu"], cpu_has("avx512_fp16"));
  EXPECT_EQ(by_name["AMX"]["cpu"], cpu_has("amx_tile"));
  const bool vnni_and_bf16 = cpu_has("avx512_vnni") && cpu_has("avx512_bf16");
  EXPECT_EQ(by_name["VNNI"]["used"], vnni_and_bf16);
  EXPECT_EQ(by_name["AVX512-BF16"]["used"], vnni_and_bf16);
  EXPECT_EQ(by_name["AVX512-FP16"]["used"], false);
  EXPECT_EQ(host["device"]["halide_target"].get<std::string>().find("avx512_sapphirerapids") != std::string::npos,
            vnni_and_bf16);
  const auto text = run_ktune("devices");
  EXPECT_THAT(text.out, HasSubstr("low precision: VNNI "));
}

TEST(LowPrecisionCpuFeatures, KernelsUsingAMissingInstructionCrashAndNeverBecomeBest) {
  if (!cpu_has("avx512_vnni") || !cpu_has("avx512_bf16")) GTEST_SKIP() << "the CPU lacks VNNI or AVX512-BF16";
  if (cpu_has("avx512_fp16")) GTEST_SKIP() << "the CPU has all of Sapphire Rapids: no instruction is missing";
  // Halide alone compiles the bf16 scores with LLVM's Sapphire Rapids model, whose
  // AVX512-FP16 instructions this CPU lacks: a crash, every time.
  const std::string all_features = "KTUNE_CODEGEN_ALL_FEATURES=1 ";
  const auto crashed = run_command(all_features + KTUNE_EXE + " measure " + spec("bmm_scores_bf16") +
                                   " --named heuristic --threads 2 --min-repeats 1 --repeat-min-ms 1 2>&1");
  EXPECT_THAT(crashed.out, HasSubstr("crash: Illegal instruction"));
  const std::string db = testing::scratch_path("lowp_guard.db");
  fs::remove(db);
  // A tuning run records its crashes as such; a candidate whose code happens not to touch
  // AVX512-FP16 may run, and only such a one can become the best.
  const auto tune = run_command(all_features + KTUNE_EXE + " tune " + spec("bmm_scores_bf16") + " --db " + db +
                                " --trials 4 --threads 2 2>&1");
  const auto stats = run_ktune("db stats --db " + db);
  EXPECT_THAT(stats.out, ::testing::ContainsRegex("status    crash [1-4]")) << stats.out;
  const auto best = run_ktune("query --db " + db + " --workload " + spec("bmm_scores_bf16"));
  if (tune.exit_code != 0) {
    EXPECT_THAT(tune.out, HasSubstr("no subgraph has a schedule that ran correctly"));
    EXPECT_NE(best.exit_code, 0) << "a crashed kernel became the best: " << best.out;
  } else {
    ASSERT_EQ(best.exit_code, 0) << best.out;
    const fs::path schedule = testing::scratch_path("lowp_guard_best.json");
    std::ofstream(schedule) << nlohmann::json::parse(best.out)["schedule"].dump();
    const auto rerun = run_command(all_features + KTUNE_EXE + " measure " + spec("bmm_scores_bf16") + " --schedule " +
                                   schedule.string() + " --threads 2 --min-repeats 1 --repeat-min-ms 1 2>&1");
    EXPECT_THAT(rerun.out, HasSubstr("check     passed")) << "the best must be a kernel that ran: " << rerun.out;
  }

  // ktune's own compiles leave those instructions out: the same kernel runs, checks and
  // uses the bf16 dot product.
  const fs::path assembly = testing::scratch_path("bmm_scores_bf16.s");
  const auto ran = run_ktune("measure " + spec("bmm_scores_bf16") + " --named heuristic --threads 2 --min-repeats 1 " +
                             "--repeat-min-ms 1 --assembly " + assembly.string());
  EXPECT_EQ(ran.exit_code, 0) << ran.out;
  EXPECT_THAT(ran.out, HasSubstr("check     passed"));
  std::ifstream in(assembly);
  std::stringstream code;
  code << in.rdbuf();
  EXPECT_THAT(code.str(), HasSubstr("vdpbf16ps"));
  EXPECT_THAT(code.str(), Not(HasSubstr("vmovw")));

  // The best is exported for exactly the target it was tuned and checked with.
  const auto retune = run_ktune("tune " + spec("bmm_scores_bf16") + " --db " + db + " --trials 4 --threads 2");
  ASSERT_EQ(retune.exit_code, 0) << retune.out;
  const std::string target = host_entry()["device"]["halide_target"];
  const fs::path out = testing::scratch_path("lowp_guard_export");
  const auto exported = run_ktune("export --db " + db + " --workload " + spec("bmm_scores_bf16") + " --out " +
                                  out.string());
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  std::ifstream header(out / "include" / "ktune_kernels.h");
  std::stringstream h;
  h << header.rdbuf();
  EXPECT_THAT(h.str(), HasSubstr("// Halide target " + target + "."));
  fs::remove_all(out);
  fs::remove(db);
}

}  // namespace
}  // namespace ktune
