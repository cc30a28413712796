// Strips walked in column tiles: the running maximum's windows stored per tile of 16 vectors,
// the tile loop between the rows and the strips; narrow rows are left alone.
#include "scheduler/column_tiles.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(ColumnTiles, TheRunningMaximumsWindowsAreStoredPerTileOfItsStrips) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_running_max",
                                                     {{"width", "1024"}, {"height", "256"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  Schedule tiled = h;
  ASSERT_TRUE(tile_strip_columns(space.analysis(), tiled));
  ASSERT_EQ(space.validate(tiled).value_or(""), "");
  const StageSchedule& out = tiled.find("output")->stages.at(0);
  ASSERT_EQ(out.splits.size(), 3u);
  EXPECT_EQ(out.splits[1].factor, kColumnTileVectors);
  const std::string tile = out.splits[1].outer;
  EXPECT_EQ(out.order, (std::vector<std::string>{"x_i", out.splits[1].inner, "y_i", tile, "y_o"}));
  for (const char* window : {"max2_x", "max15_x", "max8_y"}) {
    const ComputeLocation& c = tiled.find(window)->compute;
    EXPECT_EQ(c.store_loop, tile) << window;
    EXPECT_EQ(c.loop, "y_i") << window;
    EXPECT_EQ(c.fold_rows, h.find(window)->compute.fold_rows) << window;
    EXPECT_EQ(tiled.find(window)->stages.at(0).splits.at(0).tail, Tail::kRoundUp) << window;
  }
  bool a_variant = false;
  for (const Schedule& v : space.strip_variants()) a_variant |= v == tiled;
  EXPECT_TRUE(a_variant) << "the tuner measures it first";
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), tiled, inputs, sg->reference(inputs)), "");
}

TEST(ColumnTiles, RowsOfFewerThanFourTilesAreLeftAlone) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_running_max",
                                                     {{"width", "256"}, {"height", "256"}});
  const Space space(analyze(*sg, testing::test_target()));
  Schedule h = space.heuristic();
  EXPECT_FALSE(tile_strip_columns(space.analysis(), h));
}

}  // namespace
}  // namespace ktune::scheduler
