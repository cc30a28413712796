// Inlined stencils multiply: the validator refuses a chain whose inlined body would take
// LLVM minutes, and accepts it once one stage of the chain is stored.
#include "scheduler/inline_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// s1 .. s9: nine 3-tap stencils along one axis, then a pointwise output.
std::string stencil_chain_spec() {
  std::string ops;
  std::string prev = "in";
  for (int i = 1; i <= 9; ++i) {
    const std::string name = "s" + std::to_string(i);
    ops += R"({"op": "stencil", "inputs": [")" + prev + R"("], "output": ")" + name +
           R"(", "axes": [1], "weights": [1, 2, 1]},)";
    prev = name;
  }
  return R"({"name": "deep", "inputs": [{"name": "in", "shape": [8, 276]}], "ops": [)" + ops +
         R"({"op": "relu", "inputs": [")" + prev + R"("], "output": "out"}], "outputs": ["out"]})";
}

Schedule all_inlined(const Analysis& a) {
  Schedule s;
  for (const FuncAnalysis& fa : a.funcs) {
    FuncSchedule f;
    f.func = fa.name;
    f.compute.kind = fa.is_output ? ComputeLocation::Kind::kRoot : ComputeLocation::Kind::kInline;
    s.funcs.push_back(f);
  }
  return s;
}

TEST(InlineCost, DistinctAccessesOfInlinedFuncsMultiply) {
  const auto sg = testing::spec_subgraph(stencil_chain_spec());
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  Schedule s = all_inlined(a);
  const int out = a.index_of("out");
  const int64_t inlined = inlined_ops(a, s, out, 0);
  EXPECT_GT(inlined, 19683);  // 3^9 reads of the input, with their arithmetic
  EXPECT_TRUE(reads_a_stencil_of(a, a.index_of("s2"), 0, a.index_of("s1")));
  EXPECT_FALSE(reads_a_stencil_of(a, out, 0, a.index_of("s9")));
  EXPECT_THAT(space.validate(s).value_or(""), ::testing::StartsWith("inline_expansion: out: the Funcs it inlines make"));
  // Storing the middle of the chain cuts both halves to 3^5 and 3^4.
  s.find("s5")->compute.kind = ComputeLocation::Kind::kRoot;
  EXPECT_LT(inlined_ops(a, s, out, 0), kMaxInlinedOps);
  EXPECT_LT(inlined_ops(a, s, a.index_of("s5"), 0), kMaxInlinedOps);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(space.validate(space.heuristic()).value_or(""), "");
}

}  // namespace
}  // namespace ktune::scheduler
