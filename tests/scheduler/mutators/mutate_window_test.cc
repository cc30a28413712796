#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// Two stencils down the columns, then a third: bx -> by -> out, 64 x 96.
const char* kChainSpec = R"({"inputs": [{"name": "in", "shape": [102, 64]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "bx", "axes": [0], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["bx"], "output": "by", "axes": [0], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["by"], "output": "out", "axes": [0], "weights": [1, 1, 1]}], "outputs": ["out"]})";

// out in strips of 16 rows; bx and by computed per row, by also stored per row.
const char* kPerRow = R"({"funcs": [
  {"func": "bx", "compute": {"kind": "at", "consumer": "out", "consumer_stage": 0, "loop": "y_i", "store_loop": "y_o"}},
  {"func": "by", "compute": {"kind": "at", "consumer": "out", "consumer_stage": 0, "loop": "y_i"}},
  {"func": "out", "compute": {"kind": "root"}, "stages": [{"stage": 0,
    "splits": [{"loop": "y", "outer": "y_o", "inner": "y_i", "factor": 16, "tail": "shift_inwards"}],
    "order": ["x", "y_i", "y_o"], "parallel": ["y_o"]}]}]})";

std::string windows(const Schedule& s) {
  std::string out;
  for (const FuncSchedule& f : s.funcs) {
    if (f.compute.sliding()) out += (out.empty() ? "" : " ") + f.func + "@" + f.compute.store_loop;
  }
  return out.empty() ? "none" : out;
}

TEST(MutateWindow, OneFuncStartsOrStopsSlidingAndThePipelineGoesIntoStripsInOneStep) {
  const auto sg = testing::spec_subgraph(kChainSpec);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = Schedule::from_json(nlohmann::json::parse(kPerRow), "test");
  ASSERT_EQ(space.validate(base).value_or(""), "");
  const auto seen = testing::reached_alternatives(*make_window_mutator(), base, space, windows);
  // bx stops sliding; by starts; or the whole pipeline is put in the heuristic's strips.
  EXPECT_TRUE(seen.count("none")) << ::testing::PrintToString(seen);
  EXPECT_TRUE(seen.count("bx@y_o by@y_o")) << ::testing::PrintToString(seen);
  for (const std::string& s : seen) EXPECT_TRUE(s == "none" || s == "bx@y_o by@y_o") << s;
}

// A window that stops sliding drops its fold too: a fold without a store loop is no
// schedule ktune can read back (ktune_camera_raw's best of a tune once was one, and its
// bench could not use it).
TEST(MutateWindow, AWindowThatStopsSlidingKeepsNoFold) {
  const auto sg = testing::spec_subgraph(kChainSpec);
  const Space space(analyze(*sg, testing::test_target()));
  nlohmann::json folded = nlohmann::json::parse(kPerRow);
  folded["funcs"][0]["compute"]["fold_rows"] = 4;
  const Schedule base = Schedule::from_json(folded, "test");
  ASSERT_EQ(space.validate(base).value_or(""), "");
  const auto mutator = make_window_mutator();
  Rng rng(3);
  int stopped = 0;
  for (int i = 0; i < 200; ++i) {
    const std::optional<Schedule> s = mutator->propose(base, space, rng);
    if (!s || s->find("bx")->compute.sliding()) continue;
    ++stopped;
    EXPECT_EQ(s->find("bx")->compute.fold_rows, 0);
    EXPECT_NO_THROW(Schedule::from_json(s->to_json(), "round trip"));
  }
  EXPECT_GT(stopped, 0);
}

TEST(MutateWindow, NothingToDoOnAGpu) {
  const auto sg = testing::spec_subgraph(kChainSpec);
  Analysis a = analyze(*sg, testing::test_target());
  a.target.kind = targets::DeviceKind::kCuda;
  const Space space(a);
  Rng rng(1);
  EXPECT_FALSE(make_window_mutator()->propose(Schedule::from_json(nlohmann::json::parse(kPerRow), "test"), space, rng));
}

}  // namespace
}  // namespace ktune::scheduler
