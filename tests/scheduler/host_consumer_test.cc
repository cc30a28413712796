// Where producers may be computed: on a CPU, beside the Funcs that read them in a tile of
// their host (a tile group), never inside a loop where a reader is computed.
#include "scheduler/host_consumer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;

// Two stencils and a pointwise output: bx -> by -> out.
constexpr const char* kStencilChain = R"({"name": "chain", "inputs": [{"name": "in", "shape": [70, 134]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "bx", "axes": [1], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["bx"], "output": "by", "axes": [0], "weights": [1, 2, 1]},
          {"op": "relu", "inputs": ["by"], "output": "out"}],
  "outputs": ["out"]})";

// out tiled 16 x 8 (loops x_i, y_i, x_o, y_o innermost first), by at out's x_o, bx at `bx_loop`.
Schedule tile_group(const std::string& bx_loop) {
  Schedule s;
  FuncSchedule out;
  out.func = "out";
  StageSchedule st;
  st.splits = {{"x", "x_o", "x_i", 16}, {"y", "y_o", "y_i", 8}};
  st.order = {"x_i", "y_i", "x_o", "y_o"};
  st.parallel = {"y_o"};
  st.vectorize = "x_i";
  out.stages = {st};
  FuncSchedule by{"by", {ComputeLocation::Kind::kAt, "out", 0, "x_o"}, {}, {}};
  FuncSchedule bx{"bx", {ComputeLocation::Kind::kAt, "out", 0, bx_loop}, {}, {}};
  s.funcs = {bx, by, out};
  return s;
}

class TileGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = testing::spec_subgraph(kStencilChain);
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(TileGroupTest, AProducerOfATileGroupIsHostedByTheOutputAtOrOutsideItsReaders) {
  const Analysis& a = space_->analysis();
  const AtHost host = at_host(a, tile_group("x_o"), a.index_of("bx"));
  EXPECT_EQ(host.func, a.index_of("out"));
  EXPECT_EQ(host.stage, 0);
  EXPECT_EQ(host.innermost, "x_o");  // by, which reads bx, is computed there
  // Its single consumer (by) is not at root: the consumer rule alone would offer nothing.
  EXPECT_EQ(host_consumer(a, tile_group("x_o"), a.index_of("bx")).first, a.index_of("by"));
  std::vector<std::string> loops;
  for (const ComputeLocation& o : space_->compute_options(tile_group("x_o"), a.index_of("bx"))) {
    if (o.kind == ComputeLocation::Kind::kAt && !o.sliding()) loops.push_back(o.consumer + "." + o.loop);
  }
  EXPECT_EQ(loops, (std::vector<std::string>{"out.x_o", "out.y_o"}));
}

TEST_F(TileGroupTest, TheGroupValidatesAndComputesTheReference) {
  EXPECT_EQ(space_->validate(tile_group("x_o")).value_or(""), "");
  EXPECT_EQ(space_->validate(tile_group("y_o")).value_or(""), "");
  const auto inputs = sg_->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), tile_group("x_o"), inputs, sg_->reference(inputs)), "");
}

TEST_F(TileGroupTest, AProducerInsideTheLoopWhereItsReaderIsComputedIsRejected) {
  EXPECT_THAT(space_->validate(tile_group("y_i")).value_or(""),
              HasSubstr("inside loop \"x_o\" where a Func that reads it is computed"));
}

TEST_F(TileGroupTest, TheHeuristicComputesStencilProducersPerTile) {
  const Schedule h = space_->heuristic();
  EXPECT_EQ(space_->validate(h).value_or(""), "");
  EXPECT_EQ(h.find("bx")->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(h.find("bx")->compute.consumer, "out");
  EXPECT_EQ(h.find("by")->compute.kind, ComputeLocation::Kind::kInline);  // read at one point by out
}

}  // namespace
}  // namespace ktune::scheduler
