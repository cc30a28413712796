#include "targets/cpu_codegen.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <string>
#include <vector>

namespace ktune::targets {
namespace {

const std::vector<std::string> kEpyc = {"avx2", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx_vnni",
                                        "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq", "gfni", "vaes",
                                        "vpclmulqdq", "avx512_vp2intersect", "f16c"};

TEST(CpuCodegen, SapphireRapidsLeavesOutWhatTheCpuLacks) {
  EXPECT_EQ(llvm_features_cpu_lacks("sapphirerapids", kEpyc),
            (std::vector<std::string>{"amx-bf16", "amx-int8", "amx-tile", "avx512fp16"}));
  std::vector<std::string> spr = kEpyc;
  for (const char* flag : {"avx512_fp16", "amx_tile", "amx_int8", "amx_bf16"}) spr.push_back(flag);
  EXPECT_TRUE(llvm_features_cpu_lacks("sapphirerapids", spr).empty());
  // Other CPU models, and unknown flags, are left as Halide asked.
  EXPECT_TRUE(llvm_features_cpu_lacks("cannonlake", kEpyc).empty());
  EXPECT_TRUE(llvm_features_cpu_lacks("sapphirerapids", {}).empty());
}

TEST(CpuCodegen, WithoutFp16TheCannonLakeModelCompiles) {
  EXPECT_EQ(llvm_cpu_model("sapphirerapids", kEpyc), "cannonlake");
  std::vector<std::string> spr = kEpyc;
  spr.push_back("avx512_fp16");
  EXPECT_EQ(llvm_cpu_model("sapphirerapids", spr), "sapphirerapids");
  EXPECT_EQ(llvm_cpu_model("skylake-avx512", kEpyc), "skylake-avx512");
  EXPECT_EQ(llvm_cpu_model("sapphirerapids", {}), "sapphirerapids");
}

TEST(CpuCodegen, FeaturesAreSubtractedFromTheList) {
  EXPECT_EQ(without_llvm_features("+fma,+avx512bf16", {"avx512fp16", "amx-tile"}),
            "+fma,+avx512bf16,-avx512fp16,-amx-tile");
  EXPECT_EQ(without_llvm_features("", {"avx512fp16"}), "-avx512fp16");
  EXPECT_EQ(without_llvm_features("+fma", {}), "+fma");
}

TEST(CpuCodegen, AnEnvironmentFlagIsSetByAnythingButEmptyOrZero) {
  const char* name = "KTUNE_TEST_ENV_FLAG";
  unsetenv(name);
  EXPECT_FALSE(env_flag_set(name));
  for (const char* off : {"", "0"}) {
    setenv(name, off, 1);
    EXPECT_FALSE(env_flag_set(name)) << "\"" << off << "\"";
  }
  for (const char* on : {"1", "yes"}) {
    setenv(name, on, 1);
    EXPECT_TRUE(env_flag_set(name)) << on;
  }
  unsetenv(name);
}

TEST(CpuCodegen, TestsCompileThroughKtunesTargetOptions) {
  // This binary links ktune_targets, so its Halide compiles follow the CPU.
  EXPECT_TRUE(codegen_follows_cpu());
}

TEST(CpuCodegen, LowPrecisionFamiliesOfAnEpyc) {
  Device epyc;
  epyc.isa_features = kEpyc;
  epyc.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  const std::vector<LowPrecisionIsa> families = low_precision_isa(epyc);
  ASSERT_EQ(families.size(), 5u);
  EXPECT_EQ(families[0].name, "VNNI");
  EXPECT_TRUE(families[0].cpu_has && families[0].used);
  EXPECT_TRUE(families[1].cpu_has && families[1].used);  // AVX512-BF16
  EXPECT_TRUE(families[2].cpu_has && families[2].used);    // F16C: ktune's conversions, with AVX-512
  EXPECT_FALSE(families[3].cpu_has || families[3].used);  // AVX512-FP16
  EXPECT_FALSE(families[4].cpu_has || families[4].used);  // AMX
  epyc.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41";
  EXPECT_FALSE(low_precision_isa(epyc)[0].used);
  epyc.halide_target = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  EXPECT_FALSE(low_precision_isa(epyc)[2].used);  // F16C without AVX-512: Halide's conversion
  epyc.halide_target = "arm-64-linux-arm_dot_prod";
  EXPECT_TRUE(low_precision_isa(epyc).empty());
}

}  // namespace
}  // namespace ktune::targets
