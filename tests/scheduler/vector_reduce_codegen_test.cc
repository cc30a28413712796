// Vectorized reductions (StageSchedule::vector_reduce) as Halide 14 compiles them: a u8 × i8
// matmul whose reduction piece of 4 sits inside the vectorized output columns runs right on
// this machine, and its assembly has VNNI's vpdpbusd on a target with
// avx512_sapphirerapids (compiled only: this machine need not have it); bf16 pairs give
// vdpbf16ps there, and 16-bit pairs vpmaddwd on plain AVX-512.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kAvx512 = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41";
constexpr const char* kSapphireRapids =
    "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";

std::string matmul_spec(const std::string& a, const std::string& b) {
  return R"({"name": "q", "inputs": [{"name": "A", "shape": [8, 256], "dtype": ")" + a +
         R"("}, {"name": "B", "shape": [256, 64], "dtype": ")" + b +
         R"("}], "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "c"}], "outputs": ["c"]})";
}

// The naive schedule with the accumulator's update (`acc`: "c_acc", or "c_f32_acc" where
// the product is stored back in bf16) vectorized 16 columns wide around a reduction piece
// of `factor`, vectorized too (vector_reduce).
Schedule dot_product_schedule(const Space& space, int64_t factor, const std::string& acc = "c_acc") {
  Schedule s = space.naive();
  StageSchedule update;
  update.stage = 1;
  update.splits = {{"x", "x_o", "x_i", 16}, {"k$x", "k_x_vo", "k_x_vr", factor}};
  update.order = {"k_x_vr", "x_i", "k_x_vo", "x_o", "y"};
  update.vectorize = "x_i";
  update.vector_reduce = "k_x_vr";
  FuncSchedule* f = s.find(acc);
  EXPECT_NE(f, nullptr) << acc;
  if (f) f->stages = {update};
  return s;
}

// The assembly of the scheduled pipeline compiled for `halide_target`.
std::string assembly(const subgraphs::Subgraph& sg, const Space& space, const Schedule& s, const std::string& halide_target) {
  const ApplyResult applied = apply(s, sg, space.analysis());
  EXPECT_TRUE(applied.ok) << applied.error;
  if (!applied.ok) return "";
  const std::string path = ::testing::TempDir() + "ktune_vector_reduce_" + std::to_string(getpid()) + ".s";
  Halide::Pipeline p = applied.built->pipeline;
  p.compile_to_assembly(path, p.infer_arguments(), "f", Halide::Target(halide_target + "-no_runtime"));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  return text.str();
}

TEST(VectorReduceCodegen, QuantizedMatmulRunsRightAndUsesVnniWhereTheTargetHasIt) {
  const auto sg = testing::spec_subgraph(matmul_spec("u8", "i8"));
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = dot_product_schedule(space, 4);
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
  EXPECT_THAT(assembly(*sg, space, s, kSapphireRapids), HasSubstr("vpdpbusd"));
  const std::string avx512 = assembly(*sg, space, s, kAvx512);
  EXPECT_THAT(avx512, Not(HasSubstr("vpdpbusd")));
  EXPECT_THAT(avx512, HasSubstr("vpmaddwd"));
  // Without the vectorized piece, no dot product instruction even where VNNI exists.
  EXPECT_THAT(assembly(*sg, space, space.naive(), kSapphireRapids), Not(HasSubstr("vpdpbusd")));
}

// On a target with VNNI the heuristic's matmul template vectorizes the reduction by 4.
TEST(VectorReduceCodegen, TheHeuristicUsesVnniWhereTheTargetHasIt) {
  const auto sg = testing::spec_subgraph(matmul_spec("u8", "i8"));
  TargetInfo spr = testing::test_target();
  spr.halide_target = kSapphireRapids;
  spr.vector_lanes = 16;
  spr.vector_registers = 32;
  const Space space(analyze(*sg, spr));
  const Schedule h = space.heuristic();
  bool vectorized = false;
  for (const StageSchedule& st : h.find("c_acc")->stages) vectorized |= st.vector_reduce == "k_x_vr";
  EXPECT_TRUE(vectorized) << h.to_json().dump();
  EXPECT_EQ(space.validate(h).value_or(""), "");
  EXPECT_THAT(assembly(*sg, space, h, kSapphireRapids), HasSubstr("vpdpbusd"));
  // Without VNNI the heuristic keeps the pure vector innermost.
  const Space plain(analyze(*sg, testing::test_target()));
  for (const StageSchedule& st : plain.heuristic().find("c_acc")->stages) EXPECT_EQ(st.vector_reduce, "");
}

TEST(VectorReduceCodegen, Bf16PairsUseDpbf16psWhereTheTargetHasIt) {
  const auto sg = testing::spec_subgraph(matmul_spec("bf16", "bf16"));
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = dot_product_schedule(space, 2, "c_f32_acc");
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
  EXPECT_THAT(assembly(*sg, space, s, kSapphireRapids), HasSubstr("vdpbf16ps"));
}

TEST(VectorReduceCodegen, PrintedSourceSaysAtomicVectorize) {
  const auto sg = testing::spec_subgraph(matmul_spec("u8", "i8"));
  const Space space(analyze(*sg, testing::test_target()));
  const ApplyResult applied = apply(dot_product_schedule(space, 4), *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("c_acc.update(0).atomic().vectorize(k_x_vr);"));
  const Schedule round_trip = Schedule::from_json(dot_product_schedule(space, 4).to_json(), "test");
  EXPECT_EQ(round_trip, dot_product_schedule(space, 4));
  EXPECT_EQ(round_trip.to_json()["funcs"][0]["stages"][0]["vector_reduce"], "k_x_vr");
}

}  // namespace
}  // namespace ktune::scheduler
