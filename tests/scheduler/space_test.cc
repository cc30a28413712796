#include "scheduler/space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// The heuristic schedule of `sg` for `target` is valid, accepted by Halide and computes the
// reference's answer on inputs of `seed`.
void expect_heuristic_valid_and_correct(const subgraphs::Subgraph& sg, const TargetInfo& target, uint64_t seed) {
  const Space space(analyze(sg, target));
  const Schedule h = space.heuristic();
  EXPECT_EQ(space.validate(h).value_or(""), "");
  const auto inputs = sg.make_inputs(seed);
  EXPECT_EQ(testing::run_and_compare(sg, space.analysis(), h, inputs, sg.reference(inputs)), "");
}

class SuiteSpaceTest : public ::testing::TestWithParam<const char*> {};

// The named reference schedules are valid, accepted by Halide and compute the right
// answer on every suite subgraph.
TEST_P(SuiteSpaceTest, HeuristicIsValidAndCorrect) {
  const auto sg = testing::suite_subgraph(GetParam());
  expect_heuristic_valid_and_correct(*sg, testing::test_target(), 11);
  const Space space(analyze(*sg, testing::test_target()));
  EXPECT_EQ(space.validate(space.naive()).value_or(""), "");
}

INSTANTIATE_TEST_SUITE_P(PublicSuite, SuiteSpaceTest,
                         ::testing::Values("gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu",
                                           "softmax", "layernorm", "eltwise", "blur3x3", "colsum"));

class ShapesSpaceTest : public ::testing::TestWithParam<const char*> {};

// The heuristic is valid and computes the right answer on every subgraph of the shapes and
// fusions the suite does not have, with AVX-512's tiles (a few odd columns, a batch of 8).
TEST_P(ShapesSpaceTest, HeuristicIsValidAndCorrect) {
  expect_heuristic_valid_and_correct(*testing::shapes_subgraph(GetParam()), testing::avx512_test_target(), 12);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ShapesSpaceTest,
                         ::testing::Values("bmm_seq77", "conv1x1", "conv3x3_c48", "conv_rgb", "conv_s2_pool",
                                           "gemm_odd_t", "mlp_batch8", "mm_bias_relu", "norm_gate",
                                           "rowmax_exp_mean"));

// A reduction read only through an inlined Func is placed by that Func's indices: layernorm's
// variance (per row), read through the inlined inverse standard deviation, is computed once
// per block of rows of the output, not again for every block of columns.
TEST(Space, HeuristicPlacesAReductionReadThroughAnInlinedFuncByItsRows) {
  const auto sg = testing::suite_subgraph("layernorm");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(h.find("y_inv")->compute.kind, ComputeLocation::Kind::kInline);
  const FuncSchedule* var = h.find("y_var");
  ASSERT_EQ(var->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(var->compute.consumer, "y");
  EXPECT_EQ(var->compute.loop, "y_o");  // rows; "x_o" (columns) recomputed it 48 times
}

// Through two inlined Funcs: an RMS norm's output, inlined into a gate, reads the rows' mean
// square through the inlined inverse root. Every loop of the gate indexes the norm, but only
// the rows reach the mean square, so it is computed per block of rows, not per vector of
// columns (at "x_o": bench/suite_shapes/norm_gate.json took 1.41 ms against 0.206, docs/benchmarks.md).
// The schedule stays right.
TEST(Space, HeuristicPlacesAReductionReadThroughTwoInlinedFuncsByItsRows) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [48, 40]}, {"name": "g", "shape": [48, 40]}],
    "ops": [{"op": "rmsnorm", "inputs": ["x"], "output": "n"}, {"op": "sigmoid", "inputs": ["g"], "output": "s"},
            {"op": "mul", "inputs": ["n", "s"], "output": "Y"}], "outputs": ["Y"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(h.find("n")->compute.kind, ComputeLocation::Kind::kInline) << h.to_json().dump();
  ASSERT_EQ(h.find("n_inv")->compute.kind, ComputeLocation::Kind::kInline);
  const FuncSchedule* ms = h.find("n_ms");
  ASSERT_EQ(ms->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(ms->compute.consumer, "Y");
  EXPECT_EQ(ms->compute.loop, "y_o");
  const auto inputs = sg->make_inputs(8);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

// A 1-D loop is cut into a few large parallel tasks (about 8 per core), not one per 64
// vectors: the thread pool's cost per task dominated eltwise (16M floats).
TEST(Space, HeuristicGivesEachTaskOfALongOneDimensionalLoopALargeBlock) {
  const auto sg = testing::suite_subgraph("eltwise");
  const TargetInfo t = testing::test_target();
  const Space space(analyze(*sg, t));
  const Schedule h = space.heuristic();
  const FuncSchedule* y = h.find("y");
  ASSERT_NE(y, nullptr);
  ASSERT_EQ(y->stages.size(), 1u);
  const StageSchedule& st = y->stages[0];
  ASSERT_EQ(st.parallel, std::vector<std::string>{"x_o"});
  int64_t per_task = 1;
  for (const LoopSplit& sp : st.splits) per_task *= sp.factor;
  const int64_t tasks = 16777216 / per_task;
  EXPECT_GE(tasks, 8 * t.cores);
  EXPECT_LT(tasks, 16 * t.cores);
  EXPECT_EQ(space.validate(h).value_or(""), "");
}

TEST(Space, NaiveComputesEverythingAtRootSerially) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule n = space.naive();
  ASSERT_EQ(n.funcs.size(), space.analysis().funcs.size());
  for (const FuncSchedule& f : n.funcs) {
    EXPECT_EQ(f.compute.kind, ComputeLocation::Kind::kRoot);
    EXPECT_TRUE(f.stages.empty());
  }
}

TEST(Space, HeuristicFollowsTheRules) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  // The reduction is computed per output tile, vectorized and register-tiled.
  const FuncSchedule* acc = h.find("C_acc");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(acc->compute.consumer, "C");
  const FuncSchedule* c = h.find("C");
  ASSERT_FALSE(c->stages.empty());
  EXPECT_FALSE(c->stages[0].parallel.empty());
  EXPECT_EQ(c->stages[0].vectorize, "x_i");
  // Cheap single-use producers are inlined.
  const auto mlp = testing::suite_subgraph("mlp_gelu");
  const Space ms(analyze(*mlp, testing::test_target()));
  EXPECT_EQ(ms.heuristic().find("pre")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(ms.heuristic().find("xw")->compute.kind, ComputeLocation::Kind::kInline);
}

// The window of a convolution inside its input channels, as oneDNN orders its loops: the
// sampler offers the reversed order of an associative update's reduction loops.
TEST(Space, SamplesReorderTheReductionLoopsOfAnAssociativeUpdate) {
  const auto sg = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(3);
  int reversed = 0;
  for (int i = 0; i < 200; ++i) {
    const std::optional<Schedule> s = space.sample(rng);
    if (!s) continue;
    for (const StageSchedule& st : s->find("conv_acc")->stages) {
      const auto window = std::find(st.order.begin(), st.order.end(), "r$z");
      const auto channels = std::find(st.order.begin(), st.order.end(), "r$x");
      if (window != st.order.end() && channels != st.order.end() && window < channels) ++reversed;
    }
  }
  EXPECT_GE(reversed, 5);
}

TEST(Space, SamplingIsDeterministicPerSeedAndVaried) {
  const auto sg = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*sg, testing::test_target()));
  std::set<std::string> hashes;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Rng a(seed), b(seed);
    const auto sa = space.sample(a);
    const auto sb = space.sample(b);
    ASSERT_TRUE(sa && sb);
    EXPECT_EQ(*sa, *sb);
    EXPECT_EQ(space.validate(*sa).value_or(""), "");
    hashes.insert(sa->hash());
  }
  EXPECT_GT(hashes.size(), 30u) << "samples should rarely repeat";
}

TEST(Space, MutateChangesAndValidates) {
  const auto sg = testing::suite_subgraph("layernorm");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(5);
  Schedule s = space.heuristic();
  std::set<std::string> used;
  for (int i = 0; i < 200; ++i) {
    std::string name;
    const auto m = space.mutate(s, rng, &name);
    ASSERT_TRUE(m.has_value());
    EXPECT_NE(*m, s);
    EXPECT_EQ(space.validate(*m).value_or(""), "");
    used.insert(name);
    s = *m;
  }
  EXPECT_GE(used.size(), 6u) << "most mutators take part";
}

TEST(Space, CrossoverTakesEachFuncFromAParent) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(3);
  const Schedule a = *space.sample(rng);
  const Schedule b = *space.sample(rng);
  int children = 0;
  for (int i = 0; i < 20; ++i) {
    const auto c = space.crossover(a, b, rng);
    if (!c) continue;
    ++children;
    EXPECT_EQ(space.validate(*c).value_or(""), "");
    for (size_t f = 0; f < c->funcs.size(); ++f) {
      EXPECT_TRUE(c->funcs[f] == a.funcs[f] || c->funcs[f] == b.funcs[f]);
    }
  }
  EXPECT_GT(children, 0);
}

}  // namespace
}  // namespace ktune::scheduler
