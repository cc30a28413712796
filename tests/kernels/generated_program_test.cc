// The pieces of the programs ktune generates (an export's check program, a bundle's runner):
// file names per dtype, the error kind a comparison uses, scalar literals C compiles
// exactly, and the buffer definitions, loads and checks of one kernel call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "kernels/generated_program.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::kernels {
namespace {

using ::testing::HasSubstr;
using subgraphs::DType;

TEST(GeneratedProgram, DataFilesAreNamedByParameterAndDtype) {
  EXPECT_EQ(data_file("x", DType::kF32, false), "x.f32");
  EXPECT_EQ(data_file("out", DType::kU8, true), "out.ref.u8");
}

TEST(GeneratedProgram, HalfTypesCompareAsTheirOwnKindAndIntegersExactly) {
  EXPECT_EQ(error_kind(DType::kF16), 'h');
  EXPECT_EQ(error_kind(DType::kBF16), 'b');
  EXPECT_EQ(error_kind(DType::kF32), 'f');
  EXPECT_EQ(error_kind(DType::kU16), 'i');
}

TEST(GeneratedProgram, ScalarLiteralsKeepTheirTypeAndValue) {
  subgraphs::ScalarInfo f;
  f.name = "gain";
  f.dtype = DType::kF32;
  f.value = 0.1;
  EXPECT_EQ(scalar_literal(f), "float(0.10000000000000001)");
  f.dtype = DType::kF16;
  f.value = 1.0;
  EXPECT_EQ(scalar_literal(f), "uint16_t(0x3c00)");  // 1.0 in IEEE half
  f.dtype = DType::kI32;
  f.value = -3;
  EXPECT_EQ(scalar_literal(f), "int32_t(-3)");
  f.dtype = DType::kBool;
  f.value = 1;
  EXPECT_EQ(scalar_literal(f), "true");
}

TEST(GeneratedProgram, Arm64ProgramsAreCrossCompiledStaticallyOnX86) {
  const ProgramCompiler arm = program_compiler_for("arm-64-linux-arm_dot_prod-arm_fp16");
  const ProgramCompiler x86 = program_compiler_for("x86-64-linux-avx2-fma");
#if defined(__aarch64__)
  EXPECT_FALSE(arm.cross);
#else
  EXPECT_TRUE(arm.cross);
  EXPECT_EQ(arm.flags, "-static");
  if (!std::getenv("KTUNE_AARCH64_CXX")) EXPECT_EQ(arm.cxx, "aarch64-linux-gnu-g++");
  EXPECT_FALSE(x86.cross);
  EXPECT_EQ(x86.flags, "");
#endif
}

TEST(GeneratedProgram, AKernelCallDefinesLoadsPassesAndChecksEveryBuffer) {
  const auto sg = subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_matmul.json");
  const KernelCallText call = kernel_call_text(*sg, {"a", "b", "c"}, "dir + \"/", "", "  ");
  EXPECT_EQ(call.args, "t_a, t_b, t_c");
  EXPECT_THAT(call.definitions, HasSubstr("Buffer<float> t_a = make<float>("));
  EXPECT_THAT(call.definitions, HasSubstr("t_c_ref"));
  EXPECT_THAT(call.loads, HasSubstr("load(t_b, dir + \"/b.f32\")"));
  EXPECT_THAT(call.loads, HasSubstr("load(t_c_ref, dir + \"/c.ref.f32\")"));
  EXPECT_THAT(call.checks, HasSubstr("max_error(t_c, t_c_ref, 'f')"));
}

}  // namespace
}  // namespace ktune::kernels
