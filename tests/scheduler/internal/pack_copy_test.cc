// Tests scheduler/internal/pack_copy.cc through apply(): the loops of a packed copy as
// Halide runs them and as the source prints them, and their results.
#include "scheduler/internal/pack_copy.h"

#include <gtest/gtest.h>

#include "scheduler/apply.h"
#include "scheduler/space.h"

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// A transposing copy walks vector-wide columns of the moved dimension along the input's
// contiguous one (the vector's rows stay in cache between gathers), and a copy at root runs
// its outermost loop with more than one iteration in parallel, not a batch of one.
TEST(PackCopy, ATransposingCopyWalksVectorColumnsAndSkipsABatchOfOne) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 40, 6, 20]}, {"name": "w", "shape": [24, 40, 1, 1]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "y", "layout": "NCHW"}], "outputs": ["y"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.heuristic();
  InputPack pack;
  pack.input = "x";
  pack.storage = {"z", "x", "y", "w"};  // the 40 channels innermost
  pack.vector_width = 16;
  pack.parallel = true;
  s.packs = {pack};
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  const std::string nest = loop_nest_text(applied);
  EXPECT_NE(nest.find("produce x_im:\n  parallel _1 in [0, 5]:\n    for _2.x_pack_vo in [0, 2]:\n      for _0 in [0, 19]:\n"
                      "        vectorized _2.x_pack_vi in [0, 15]:"),
            std::string::npos)
      << nest;
  EXPECT_NE(applied.source.find("x_pack.parallel(x_pack.args()[1]);"), std::string::npos) << applied.source;
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "") << "40 channels: a tail";

  // The input's own innermost dimension kept innermost: vectorized in place, no columns.
  s.packs[0].storage = {"x", "z", "y", "w"};
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const ApplyResult own = apply(s, *sg, space.analysis());
  ASSERT_TRUE(own.ok) << own.error;
  EXPECT_NE(own.source.find("x_pack.vectorize(x_pack.args()[0], 16, TailStrategy::GuardWithIf);"), std::string::npos) << own.source;
  EXPECT_EQ(own.source.find("x_pack_vo"), std::string::npos) << own.source;
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
