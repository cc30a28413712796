// The regions a pipeline's buffers are given, as the Generator's own program gives them: an
// output's own bound() calls decide the region it is computed over (a bound in terms of the
// output buffer, whole strips of it, is evaluated at the output's shape; dimensions without
// a bound keep their region), and an input covers its estimate as well as what is read.
#include "subgraphs/output_bounds.h"

#include <gtest/gtest.h>

#include "subgraphs/generator_loader.h"

namespace ktune::subgraphs {
namespace {

TEST(OutputBounds, ABoundInTermsOfTheBufferIsEvaluatedAtTheOutputsShape) {
  Halide::Var x("x"), y("y"), c("c");
  Halide::Func out("strips");
  out(x, y, c) = x + y + c;
  out.bound(c, 0, 3).bound(y, 0, (out.output_buffer().height() / 32) * 32);
  BuiltPipeline built;
  built.pipeline = Halide::Pipeline(out);
  built.outputs = {out};
  const TensorInfo given{"strips", DType::kI32, {4, 1968, 2592}, {}};
  const std::vector<TensorInfo> bounded = bounded_outputs(built, {given});
  ASSERT_EQ(bounded.size(), 1u);
  EXPECT_EQ(bounded[0].shape, (Shape{3, 1952, 2592}));
  EXPECT_TRUE(bounded[0].mins.empty());
}

TEST(OutputBounds, AnOutputWithoutBoundsKeepsItsRegion) {
  Halide::Var x("x");
  Halide::Func out("free");
  out(x) = x;
  BuiltPipeline built;
  built.pipeline = Halide::Pipeline(out);
  built.outputs = {out};
  const TensorInfo given{"free", DType::kI32, {100}, {7}};
  const std::vector<TensorInfo> bounded = bounded_outputs(built, {given});
  EXPECT_EQ(bounded[0].shape, given.shape);
  EXPECT_EQ(bounded[0].mins, given.mins);
}

// tests/generators/padded_blur.cc: its hand schedule bounds the output to whole strips of 32
// rows; without its schedule the output is where its estimate puts it.
TEST(OutputBounds, AGeneratorsOwnScheduleBoundsItsOutputToWholeStrips) {
  const auto gen = load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_padded_blur", {});
  ASSERT_EQ(gen->outputs().size(), 1u);
  EXPECT_EQ(gen->outputs()[0].shape, (Shape{300, 500}));
  EXPECT_EQ(gen->outputs()[0].mins, (std::vector<int64_t>{1, 1}));
  const std::vector<TensorInfo> own = bounded_outputs(gen->build_with_own_schedule(), gen->outputs());
  EXPECT_EQ(own[0].shape, (Shape{288, 500}));
  EXPECT_EQ(own[0].mins, (std::vector<int64_t>{1, 1}));
}

// The input is estimated 64 pixels larger than the 502 x 302 the output reads: it is
// allocated whole, so a schedule that computes whole tiles past the output reads inside it.
TEST(InputRegions, AnInputEstimateLargerThanTheReadsIsAllocatedWhole) {
  const auto gen = load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_padded_blur", {});
  ASSERT_EQ(gen->inputs().size(), 1u);
  EXPECT_EQ(gen->inputs()[0].shape, (Shape{364, 564}));
  EXPECT_EQ(gen->inputs()[0].mins_or_zero(), (std::vector<int64_t>{0, 0}));
}

}  // namespace
}  // namespace ktune::subgraphs
