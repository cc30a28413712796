// The heuristic never computes a scan inside a tile of the dimension it scans: a tile of
// it would still run the whole scan, once per tile. tests/generators/two_scans.cc reads its
// column pass through a transpose and the row pass, which the output computes per block of
// its rows; the column pass scans those rows, so it is computed outside that block.
#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(ScanPlacement, AScanReadThroughAnotherPassIsNotComputedPerTileOfItsRows) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_two_scans", {});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  const FuncSchedule* columns = h.find("f");
  const FuncSchedule* rows = h.find("f_3");
  ASSERT_NE(columns, nullptr);
  ASSERT_NE(rows, nullptr);
  // The row pass scans the output's columns: a block of the output's rows is one of its tiles.
  ASSERT_EQ(rows->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(rows->compute.loop, "v_2_o");
  // The column pass scans the output's rows (through the transpose and the row pass): not
  // computed in that block.
  EXPECT_FALSE(columns->compute.kind == ComputeLocation::Kind::kAt && columns->compute.loop == "v_2_o")
      << h.to_json().dump();
  EXPECT_EQ(space.validate(h), std::nullopt);
}

}  // namespace
}  // namespace ktune::scheduler
