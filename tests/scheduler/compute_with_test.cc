// compute_with (scheduler/schedule.h ComputeWith): a Func computed in a sibling's loop nest
// round-trips through JSON, validates only where Halide fuses it safely, prints as
// compute_with, computes the reference, and is what the compute_with mutator proposes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scheduler/mutators/mutator.h"
#include "scheduler/validators/validator.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;

// Two siblings read the same input, gx (along rows) and gy (along columns); the output
// multiplies them. gy is also read by gyy, which gx is not computed with in the tests.
constexpr const char* kSiblings = R"({"name": "siblings", "inputs": [{"name": "in", "shape": [40, 70]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "gx", "axes": [1], "weights": [-1, 0, 1], "padding": "clamp"},
          {"op": "stencil", "inputs": ["in"], "output": "gy", "axes": [0], "weights": [-1, 0, 1], "padding": "clamp"},
          {"op": "stencil", "inputs": ["gy"], "output": "gyy", "axes": [0], "weights": [1, 2, 1], "padding": "clamp"},
          {"op": "mul", "inputs": ["gx", "gyy"], "output": "out"}],
  "outputs": ["out"]})";

// The loops of a 2-D pure stage: x vectorized by 8 inside rows y, rows in strips of 8.
StageSchedule rows_of_vectors(bool parallel) {
  StageSchedule st;
  st.splits = {{"x", "x_o", "x_i", 8}, {"y", "y_o", "y_i", 8}};
  st.order = {"x_i", "x_o", "y_i", "y_o"};
  if (parallel) st.parallel = {"y_o"};
  st.vectorize = "x_i";
  return st;
}

// gx computed with gy at `loop`, both at root with the same loops; gyy and out at root.
Schedule siblings(const std::string& loop) {
  Schedule s;
  FuncSchedule gx{"gx", ComputeLocation{}, {rows_of_vectors(true)}, {}};
  gx.compute_with = {"gy", loop};
  s.funcs = {gx, FuncSchedule{"gy", ComputeLocation{}, {rows_of_vectors(true)}, {}},
             FuncSchedule{"gyy", ComputeLocation{}, {rows_of_vectors(true)}, {}},
             FuncSchedule{"out", ComputeLocation{}, {rows_of_vectors(true)}, {}}};
  return s;
}

class ComputeWithTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = testing::spec_subgraph(kSiblings);
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  std::string problem(const Schedule& s) const { return space_->validate(s).value_or(""); }
  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(ComputeWithTest, SiblingsSharingRowsValidatePrintAndComputeTheReference) {
  for (const char* loop : {"y_o", "y_i", "x_i"}) {
    const Schedule s = siblings(loop);
    ASSERT_EQ(problem(s), "") << loop;
    const ApplyResult applied = apply(s, *sg_, space_->analysis());
    ASSERT_TRUE(applied.ok) << applied.error;
    EXPECT_THAT(applied.source, HasSubstr(std::string("gx.compute_with(gy, ") + loop + ");")) << applied.source;
    const auto inputs = sg_->make_inputs(3);
    EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), s, inputs, sg_->reference(inputs)), "") << loop;
  }
}

TEST_F(ComputeWithTest, JsonRoundTripAndMalformedFields) {
  const Schedule s = siblings("y_i");
  EXPECT_EQ(s.to_json()["funcs"][0]["compute_with"], (nlohmann::json{{"func", "gy"}, {"loop", "y_i"}}));
  EXPECT_EQ(Schedule::from_json(s.to_json(), "s.json"), s);
  EXPECT_FALSE(siblings("").to_json()["funcs"][1].contains("compute_with")) << "only where set";
  nlohmann::json bad = s.to_json();
  bad["funcs"][0]["compute_with"] = {{"func", "gy"}};
  try {
    Schedule::from_json(bad, "s.json");
    ADD_FAILURE() << "a compute_with without its loop parsed";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("funcs[0].compute_with"));
  }
  bad["funcs"][0]["compute_with"] = "gy";
  EXPECT_ANY_THROW(Schedule::from_json(bad, "s.json"));
}

TEST_F(ComputeWithTest, RefusesWhatHalideWouldNotFuse) {
  Schedule s = siblings("y_i");
  s.find("gx")->compute_with.loop = "z";
  EXPECT_THAT(problem(s), HasSubstr("gx has no loop \"z\""));

  s = siblings("y_i");
  s.find("gx")->compute_with.func = "gx";
  EXPECT_THAT(problem(s), HasSubstr("not computed with itself"));

  s = siblings("y_i");
  s.find("gx")->compute_with.func = "gyy";  // gyy reads gy, not gx: a sibling too
  EXPECT_EQ(problem(s), "");
  s.find("gx")->compute_with.func = "out";  // out reads gx
  EXPECT_THAT(problem(s), HasSubstr("one of the two reads the other"));

  s = siblings("y_i");
  s.find("gy")->compute.kind = ComputeLocation::Kind::kInline;
  s.find("gy")->stages.clear();
  EXPECT_THAT(problem(s), HasSubstr("gx compute_with gy:"));

  s = siblings("y_i");
  s.find("gy")->stages[0] = rows_of_vectors(false);
  EXPECT_THAT(problem(s), HasSubstr("loop \"y_o\" is parallel here and serial in gy"));

  s = siblings("y_i");
  s.find("gy")->stages[0].splits[1].factor = 4;  // other rows: the same names, fused anyway
  EXPECT_EQ(problem(s), "");
  s.find("gy")->stages[0].order = {"x_i", "y_i", "x_o", "y_o"};
  EXPECT_THAT(problem(s), HasSubstr("the loops from \"y_i\" outward differ from gy's"));

  s = siblings("y_i");
  s.find("gy")->compute_with = {"gyy", "y_o"};
  EXPECT_THAT(problem(s), HasSubstr("gy is computed with gyy itself"));
}

TEST_F(ComputeWithTest, RefusedOnGpuTargets) {
  TargetInfo cuda = testing::test_target();
  cuda.halide_target = "host-cuda";
  cuda.kind = targets::DeviceKind::kCuda;
  const auto problem = make_compute_with_validator()->check(siblings("y_i"), analyze(*sg_, cuda));
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, HasSubstr("for CPU targets"));
}

TEST_F(ComputeWithTest, TheMutatorJoinsASiblingAndLeavesIt) {
  Schedule alone = siblings("y_i");
  alone.find("gx")->compute_with = {};
  alone.find("gx")->stages[0].splits[1].factor = 4;  // its own rows, until it joins gy
  const auto mutator = make_compute_with_mutator();
  Rng rng(11);
  bool joined = false, left = false;
  for (int i = 0; i < 40 && !(joined && left); ++i) {
    const std::optional<Schedule> out = mutator->mutate(alone, *space_, rng);
    if (!out) continue;
    for (const FuncSchedule& fs : out->funcs) {
      if (fs.compute_with.empty()) continue;
      joined = true;
      EXPECT_EQ(fs.stage_or_empty(0), out->find(fs.compute_with.func)->stage_or_empty(0)) << "it takes the sibling's loops";
      const std::optional<Schedule> back = mutator->mutate(*out, *space_, rng);
      left = left || (back && back->find(fs.func)->compute_with.empty());
    }
  }
  EXPECT_TRUE(joined);
  EXPECT_TRUE(left);
}

}  // namespace
}  // namespace ktune::scheduler
