// Sliding windows: a Func computed per row of a strip and stored per strip (store_loop)
// validates only where Halide slides it, prints as store_at, round-trips through JSON, is
// offered by the space, and computes the reference; so does one whose rows are padded.
#include "scheduler/sliding_window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Three 3-tap stencils: bx (along rows) -> by (along columns) -> out (along rows).
constexpr const char* kStencils = R"({"name": "stencils", "inputs": [{"name": "in", "shape": [70, 134]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "bx", "axes": [1], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["bx"], "output": "by", "axes": [0], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["by"], "output": "out", "axes": [0], "weights": [1, 1, 1]}],
  "outputs": ["out"]})";

// out in parallel strips of 8 rows (loops x_i, x_o, y_i, y_o innermost first), vectorized
// by 8; bx and by computed per row of a strip and stored per strip.
Schedule strips(Tail row_tail = Tail::kShiftInwards, const std::string& store = "y_o") {
  StageSchedule st;
  st.splits = {{"x", "x_o", "x_i", 8, Tail::kShiftInwards}, {"y", "y_o", "y_i", 8, row_tail}};
  st.order = {"x_i", "x_o", "y_i", "y_o"};
  st.parallel = {"y_o"};
  st.vectorize = "x_i";
  const ComputeLocation window{ComputeLocation::Kind::kAt, "out", 0, "y_i", store};
  Schedule s;
  s.funcs = {FuncSchedule{"bx", window, {}, {}}, FuncSchedule{"by", window, {}, {}},
             FuncSchedule{"out", ComputeLocation{}, {st}, {}}};
  return s;
}

class SlidingWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = testing::spec_subgraph(kStencils);
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(SlidingWindowTest, WindowsAlongAStripValidatePrintAndComputeTheReference) {
  const Schedule s = strips();
  ASSERT_EQ(space_->validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *sg_, space_->analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("bx.compute_at(out, y_i);\n  bx.store_at(out, y_o);"));
  const auto inputs = sg_->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), s, inputs, sg_->reference(inputs)), "");
}

TEST_F(SlidingWindowTest, AFoldedWindowKeepsItsRowsInTurnAndComputesTheReference) {
  Schedule s = strips();
  s.find("bx")->compute.fold_rows = 4;  // by reads 3 rows of bx per row of out
  ASSERT_EQ(space_->validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *sg_, space_->analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("bx.fold_storage("));
  const auto inputs = sg_->make_inputs(6);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), s, inputs, sg_->reference(inputs)), "");
  EXPECT_EQ(Schedule::from_json(s.to_json(), "folded.json"), s);
}

TEST_F(SlidingWindowTest, APaddedWindowStoresItsRowsAlignedAndComputesTheReference) {
  Schedule s = strips();
  s.find("bx")->compute.row_alignment = 16;
  ASSERT_EQ(space_->validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *sg_, space_->analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("bx.align_storage(x, 16);"));
  EXPECT_THAT(applied.source, Not(HasSubstr("by.align_storage(")));
  const auto inputs = sg_->make_inputs(8);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), s, inputs, sg_->reference(inputs)), "");
  const Schedule back = Schedule::from_json(s.to_json(), "padded.json");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.find("bx")->compute.row_alignment, 16);
  EXPECT_NE(back.hash(), strips().hash());
}

TEST_F(SlidingWindowTest, OnlyAFuncComputedAtALoopIsPadded) {
  Schedule s = strips();
  s.find("bx")->compute = ComputeLocation{};
  s.find("bx")->compute.row_alignment = 16;
  EXPECT_THAT(space_->validate(s).value_or(""), HasSubstr("bx row_alignment: only a Func computed at a loop is padded"));
}

TEST_F(SlidingWindowTest, ARowAlignmentIsAPowerOfTwo) {
  for (int bad : {1, 12, 512}) {
    nlohmann::json j = strips().to_json();
    j["funcs"][0]["compute"]["row_alignment"] = bad;
    try {
      Schedule::from_json(j, "strips.json");
      ADD_FAILURE() << "accepted row_alignment " << bad;
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), HasSubstr("funcs[0].compute.row_alignment")) << bad;
    }
  }
}

TEST_F(SlidingWindowTest, FoldedRowsNeedAWindow) {
  nlohmann::json j = strips().to_json();
  j["funcs"][0]["compute"].erase("store_loop");
  j["funcs"][0]["compute"]["fold_rows"] = 4;
  try {
    Schedule::from_json(j, "strips.json");
    FAIL() << "accepted fold_rows without a store loop";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("funcs[0].compute.fold_rows"));
  }
}

TEST_F(SlidingWindowTest, TheStoreLoopRoundTripsThroughJson) {
  const Schedule s = strips();
  const Schedule back = Schedule::from_json(s.to_json(), "strips.json");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.find("by")->compute.store_loop, "y_o");
  EXPECT_NE(back.hash(), strips(Tail::kShiftInwards, "x_o").hash());
}

TEST_F(SlidingWindowTest, AStoreLoopThatIsTheComputeLoopIsAMalformedSchedule) {
  nlohmann::json j = strips().to_json();
  j["funcs"][0]["compute"]["store_loop"] = "y_i";
  try {
    Schedule::from_json(j, "strips.json");
    FAIL() << "accepted a store loop equal to the compute loop";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("funcs[0].compute.store_loop"));
  }
}

TEST_F(SlidingWindowTest, StoreLoopsInsideOrMissingOrThroughAGuardAreRejected) {
  EXPECT_THAT(space_->validate(strips(Tail::kShiftInwards, "x_o")).value_or(""),
              HasSubstr("stored at loop \"x_o\", inside loop \"y_i\""));
  EXPECT_THAT(space_->validate(strips(Tail::kShiftInwards, "z")).value_or(""), HasSubstr("does not have"));
  EXPECT_THAT(space_->validate(strips(Tail::kGuard)).value_or(""), HasSubstr("guarded"));
}

TEST_F(SlidingWindowTest, AStoreLoopFusedIntoTheParallelLoopIsRejected) {
  Schedule s = strips();
  FuncSchedule& out = *s.find("out");
  out.stages[0].order = {"x_i", "y_i", "x_o", "y_o"};
  out.stages[0].parallel = {"y_o", "x_o"};
  for (FuncSchedule& f : s.funcs) {
    if (f.func != "out") f.compute = {ComputeLocation::Kind::kAt, "out", 0, "y_i", "x_o"};
  }
  EXPECT_THAT(space_->validate(s).value_or(""), HasSubstr("fused into a parallel loop"));
}

TEST_F(SlidingWindowTest, TheSpaceOffersWindowsAroundTheLoopsWhereAFuncMayBeComputed) {
  const Analysis& a = space_->analysis();
  std::vector<std::string> windows;
  for (const ComputeLocation& o : space_->compute_options(strips(), a.index_of("bx"))) {
    if (o.sliding()) windows.push_back(o.loop + "/" + o.store_loop);
  }
  // by is computed at y_i, so bx may not be computed inside it (at x_o); y_o is outermost.
  EXPECT_EQ(windows, (std::vector<std::string>{"y_i/y_o"}));
  // Not through the guard of a guarded row split.
  EXPECT_TRUE(window_locations(a, strips(Tail::kGuard), {{ComputeLocation::Kind::kAt, "out", 0, "y_i"}}).empty());
}

TEST_F(SlidingWindowTest, GpuTargetsHaveNoWindows) {
  Analysis a = space_->analysis();
  a.target.kind = targets::DeviceKind::kCuda;
  EXPECT_TRUE(window_locations(a, strips(), {{ComputeLocation::Kind::kAt, "out", 0, "y_i"}}).empty());
}

}  // namespace
}  // namespace ktune::scheduler
