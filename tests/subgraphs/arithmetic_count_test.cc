// The arithmetic of a pipeline without ktune's ops: operations per stage times the points
// each stage computes, index arithmetic and buffer reads excluded.
#include "subgraphs/internal/arithmetic_count.h"

#include <gtest/gtest.h>

#include "subgraphs/pipeline_subgraph.h"

namespace ktune::subgraphs {
namespace {

// blur(x, y) = (in(x-1, y) + in(x+1, y)) * 0.5 over 100 x 20: 2 operations per point (the
// index arithmetic x-1 and x+1 does not count); out sums blur over 3 rows in an update:
// 1 addition per point and reduction step, plus its pure stage (a constant: nothing).
PipelineSubgraph blur_then_sum() {
  return PipelineSubgraph(
      "blur_then_sum",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func blur("blur"), out("out");
        Halide::Var x("x"), y("y");
        Halide::RDom r(0, 3);
        blur(x, y) = (in(x - 1, y) + in(x + 1, y)) * 0.5f;
        out(x, y) = 0.0f;
        out(x, y) += blur(x, y + r);
        out.set_estimate(x, 0, 100).set_estimate(y, 0, 20);
        return Halide::Pipeline(out);
      },
      "test", "");
}

TEST(ArithmeticCount, CountsOperationsNotIndicesOrReads) {
  Halide::Var x("x");
  Halide::Func f("f");
  f(x) = x;
  EXPECT_EQ(arithmetic_in(f(x + 1) * 2 + 1), 2);
  EXPECT_EQ(arithmetic_in(Halide::select(x > 0, Halide::sqrt(Halide::cast<float>(x)), 0.0f)), 2);
  EXPECT_EQ(arithmetic_in(Halide::min(x, 3) - Halide::max(x, 1) / 2 % 5), 5);
}

TEST(ArithmeticCount, AGeneratorPipelineCountsEachStageOverItsRegion) {
  const PipelineSubgraph sg = blur_then_sum();
  // blur is computed over 100 x 22 rows (the 3-row window of out), 2 operations each;
  // out's update adds once per point and step: 100 * 20 * 3.
  EXPECT_DOUBLE_EQ(sg.flops(), 2.0 * 100 * 22 + 1.0 * 100 * 20 * 3);
}

}  // namespace
}  // namespace ktune::subgraphs
