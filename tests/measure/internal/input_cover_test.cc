// Inputs sized by the scheduled pipeline's bounds query, as the Generator's own program sizes
// them: a schedule that reads beyond the algorithm's region runs, on the same seeded values.
#include "measure/internal/input_cover.h"

#include <gtest/gtest.h>

namespace ktune::measure::internal {
namespace {

// out(x) = g(x) + g(x + 1), g(x) = 2 * in(x), over x in [0, 100): the algorithm reads in over
// [0, 100]. The schedule computes g over [-8, 192), reading in there too.
subgraphs::BuiltPipeline over_reading_pipeline() {
  Halide::ImageParam in(Halide::Int(32), 1, "in");
  Halide::Var x("x");
  Halide::Func g("g"), out("out");
  g(x) = 2 * in(x);
  out(x) = g(x) + g(x + 1);
  g.compute_root().bound(x, -8, 200);
  return {Halide::Pipeline(out), {in.parameter()}, {out}, {}};
}

Halide::Buffer<> seeded_input() {
  Halide::Buffer<int32_t> in(101);
  for (int i = 0; i <= 100; ++i) in(i) = i * i;
  return in;
}

TEST(InputCover, AScheduleReadingBeyondTheSeededRegionRunsOnTheSameValues) {
  const subgraphs::BuiltPipeline built = over_reading_pipeline();
  const Halide::Target target = Halide::get_jit_target_from_environment();
  Halide::Buffer<int32_t> out(100);
  std::vector<Halide::Buffer<>> buffers = {out};
  Halide::Realization realization(buffers);

  bind_inputs_covering_reads(built, {seeded_input()}, realization, target);
  Halide::Pipeline pipeline = built.pipeline;
  pipeline.realize(realization, target);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out(i), 2 * i * i + 2 * (i + 1) * (i + 1)) << i;
  const Halide::Buffer<> bound = built.inputs[0].buffer();
  EXPECT_EQ(bound.dim(0).min(), -8);
  EXPECT_EQ(bound.dim(0).max(), 191);
}

TEST(InputCover, WithoutItTheSameScheduleFailsOnTheSeededInput) {
  const subgraphs::BuiltPipeline built = over_reading_pipeline();
  Halide::Internal::Parameter param = built.inputs[0];
  param.set_buffer(seeded_input());
  Halide::Buffer<int32_t> out(100);
  Halide::Pipeline pipeline = built.pipeline;
  EXPECT_THROW(pipeline.realize(out), Halide::Error);
}

TEST(InputCover, AnInputThatAlreadyCoversTheReadsIsBoundAsItIs) {
  Halide::ImageParam in(Halide::Int(32), 1, "in");
  Halide::Var x("x");
  Halide::Func out("out");
  out(x) = in(x) + 1;
  const subgraphs::BuiltPipeline built{Halide::Pipeline(out), {in.parameter()}, {out}, {}};
  const Halide::Buffer<> seeded = seeded_input();
  std::vector<Halide::Buffer<>> buffers = {Halide::Buffer<int32_t>(50)};
  Halide::Realization realization(buffers);
  bind_inputs_covering_reads(built, {seeded}, realization, Halide::get_jit_target_from_environment());
  EXPECT_EQ(built.inputs[0].buffer().data(), seeded.data());
}

TEST(InputCover, AReadFarOutOfBoundsIsLeftToFailAsThePipelinesOwnError) {
  Halide::ImageParam in(Halide::Int(32), 1, "in");
  Halide::Var x("x");
  Halide::Func out("out");
  out(x) = in(x + 1000000000);
  const subgraphs::BuiltPipeline built{Halide::Pipeline(out), {in.parameter()}, {out}, {}};
  const Halide::Buffer<> seeded = seeded_input();
  std::vector<Halide::Buffer<>> buffers = {Halide::Buffer<int32_t>(50)};
  Halide::Realization realization(buffers);
  bind_inputs_covering_reads(built, {seeded}, realization, Halide::get_jit_target_from_environment());
  EXPECT_EQ(built.inputs[0].buffer().data(), seeded.data()) << "no gigabytes of input for a bad index";
}

}  // namespace
}  // namespace ktune::measure::internal
