#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

std::string rfactor_of(const Schedule& s) {
  const StageSchedule st = testing::stage_of(s, "total_acc", 1);
  if (!st.rfactor) return "none";
  return st.rfactor->vectorize_u ? "vectorized " + st.rfactor->loop : "parallel " + st.rfactor->loop;
}

TEST(MutateRFactor, AddsBothKindsAndRemoves) {
  // A full reduction: one output, nothing to run in parallel without rfactor.
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [4096]}],
    "ops": [{"op": "reduce_sum", "inputs": ["a"], "output": "total"}], "outputs": ["total"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.naive();
  const auto m = make_rfactor_mutator();
  const auto seen = testing::reached_alternatives(*m, base, space, rfactor_of);
  EXPECT_EQ(seen, (std::set<std::string>{"parallel r_x_o", "vectorized r_x_i"}));
  Rng rng(8);
  const auto with = m->mutate(base, space, rng);
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(testing::reached_alternatives(*m, *with, space, rfactor_of), std::set<std::string>{"none"});
  // Both kinds compute the right sum.
  const auto inputs = sg->make_inputs(4);
  const auto want = sg->reference(inputs);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), *with, inputs, want), "") << with->to_json().dump();
}

// A column sum at root reaches partial sums over whole rows (pure_vector); a row sum
// computed per block of rows reaches partial sums made beside the rows (at_func).
TEST(MutateRFactor, ReachesRowStreamingAndPerRowPlacements) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "m", "shape": [64, 48]}],
    "ops": [{"op": "reduce_sum", "inputs": ["m"], "output": "cols", "axes": [0]}], "outputs": ["cols"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const auto m = make_rfactor_mutator();
  const auto placement = [](const std::string& func) {
    return [func](const Schedule& s) {
      const StageSchedule st = testing::stage_of(s, func, 1);
      if (!st.rfactor) return std::string("none");
      return std::string(st.rfactor->vectorize_u ? "vectorized" : "parallel") + (st.rfactor->at_func ? " at_func" : "") +
             (st.rfactor->pure_vector ? " pure_vector " + std::to_string(st.rfactor->pure_vector) : "");
    };
  };
  EXPECT_EQ(testing::reached_alternatives(*m, space.naive(), space, placement("cols_acc")),
            (std::set<std::string>{"parallel", "parallel pure_vector 8", "vectorized"}));
  const auto inputs = sg->make_inputs(2);
  Rng rng(4);
  bool ran = false;
  for (int i = 0; i < 200 && !ran; ++i) {
    const auto s = m->mutate(space.naive(), space, rng);
    if (!s || testing::stage_of(*s, "cols_acc", 1).rfactor->pure_vector == 0) continue;
    EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), *s, inputs, sg->reference(inputs)), "") << s->to_json().dump();
    ran = true;
  }
  EXPECT_TRUE(ran) << "no pure_vector rfactor in 200 mutations";

  const auto sm = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [20, 48]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  const Space smspace(analyze(*sm, testing::test_target()));
  Schedule rows = smspace.naive();
  for (const char* f : {"y_max", "y_exp", "y_sum"}) rows.find(f)->compute = {ComputeLocation::Kind::kAt, "y", 0, "y"};
  const auto seen = testing::reached_alternatives(*m, rows, smspace, placement("y_sum"));
  EXPECT_TRUE(seen.count("vectorized at_func")) << "the only rfactor of y_sum that sees y_exp beside it";
  EXPECT_FALSE(seen.count("vectorized")) << "at root, the intermediate would not see y_exp";
  const auto sm_inputs = sm->make_inputs(2);
  bool ran_rows = false;
  for (int i = 0; i < 200 && !ran_rows; ++i) {
    const auto s = m->mutate(rows, smspace, rng);
    if (!s || !testing::stage_of(*s, "y_sum", 1).rfactor) continue;
    EXPECT_EQ(testing::run_and_compare(*sm, smspace.analysis(), *s, sm_inputs, sm->reference(sm_inputs)), "")
        << s->to_json().dump();
    ran_rows = true;
  }
  EXPECT_TRUE(ran_rows) << "no rfactor of y_sum in 200 mutations";
}

}  // namespace
}  // namespace ktune::scheduler
