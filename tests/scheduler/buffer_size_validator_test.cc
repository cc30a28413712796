// A Func whose region is beyond Halide's 2 GB buffer limit is never computed at root: the
// schedule is refused with the Func and its size before Halide refuses it at run time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/pipeline_subgraph.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// big(x, y, z) read at z = 0, 300000, 600000, 900000: its region is 64 x 32 x 900001 f32 (7.4 GB).
subgraphs::PipelineSubgraph sparse_read() {
  return subgraphs::PipelineSubgraph(
      "sparse",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func big("big"), out("out");
        Halide::Var x("x"), y("y"), z("z");
        Halide::RDom r(0, 4);
        big(x, y, z) = in(x, y) + Halide::cast<float>(z);
        out(x, y) = 0.0f;
        out(x, y) += big(x, y, r * 300000);
        out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
        return Halide::Pipeline(out);
      },
      "test", "");
}

TEST(BufferSizeValidator, AHugeRegionAtRootIsRefusedAndInlinedItPasses) {
  const subgraphs::PipelineSubgraph sg = sparse_read();
  const Space space(analyze(sg, testing::test_target()));
  Schedule s = space.naive();
  EXPECT_THAT(space.validate(s).value_or(""),
              AllOf(StartsWith("buffer_size: big: computed at root it needs a buffer of 7.37 GB"),
                    HasSubstr("inline it or compute it at a loop of its consumer")));
  s.find("big")->compute.kind = ComputeLocation::Kind::kInline;
  s.find("big")->stages.clear();
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

}  // namespace
}  // namespace ktune::scheduler
