// GPU schedules print real Halide source too: the printed source of CUDA schedules
// (block and thread loops, shared and register memory, reductions split with rfactor into
// an intermediate kernel) compiles against Halide and, applied to a fresh pipeline, gives
// the same loop nest and the same memory types as apply() itself.
#include <gtest/gtest.h>

#include "tests/scheduler/gpu_test_support.h"
#include "tests/scheduler/printed_schedules.h"

namespace ktune::scheduler {
namespace {

const char* kSpecs[] = {
    R"({"name": "mlp", "inputs": [{"name": "x", "shape": [24, 40]}, {"name": "w", "shape": [40, 36]}, {"name": "b", "shape": [36]}],
        "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"}, {"op": "bias_add", "inputs": ["h", "b"], "output": "hb"},
                {"op": "gelu", "inputs": ["hb"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "sm", "inputs": [{"name": "x", "shape": [20, 48]}],
        "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "bl", "inputs": [{"name": "i", "shape": [34, 66]}],
        "ops": [{"op": "stencil", "inputs": ["i"], "output": "bx", "axes": [1], "weights": [1, 2, 1], "divisor": 4},
                {"op": "stencil", "inputs": ["bx"], "output": "y", "axes": [0], "weights": [1, 2, 1], "divisor": 4}],
        "outputs": ["y"]})",
};
constexpr int kPerSpec = 4;

struct Case {
  std::unique_ptr<subgraphs::SpecSubgraph> sg;
  std::unique_ptr<Space> space;
  Schedule schedule;
  ApplyResult applied;
};

// Compiles the printed sources of `cases` into lib<name>.so and compares what each does
// to a fresh pipeline with what apply() did.
void expect_printed_matches_apply(const std::vector<Case>& cases, const std::string& name) {
  std::vector<testing::PrintedCase> printed_cases;
  for (const Case& c : cases) printed_cases.push_back({c.sg.get(), &c.space->analysis(), &c.applied});
  const std::vector<ApplyResult> printed = testing::apply_printed_sources(printed_cases, name);
  ASSERT_EQ(printed.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    EXPECT_EQ(testing::without_uniquifiers(loop_nest_text(printed[i])),
              testing::without_uniquifiers(loop_nest_text(c.applied)))
        << c.applied.source;
    const std::map<std::string, Halide::Func> printed_funcs = testing::funcs_by_name(*printed[i].built, c.space->analysis());
    const std::map<std::string, Halide::Func> applied_funcs = testing::funcs_by_name(*c.applied.built, c.space->analysis());
    for (const auto& [fname, f] : printed_funcs) {
      if (!applied_funcs.count(fname)) {
        ADD_FAILURE() << "the printed pipeline has Func " << fname << ", the applied one does not";
        continue;
      }
      EXPECT_EQ(static_cast<int>(f.function().schedule().memory_type()),
                static_cast<int>(applied_funcs.at(fname).function().schedule().memory_type()))
          << fname << "\n" << c.applied.source;
    }
  }
}

// Case `i` of `spec` on an A100: the heuristic first, then samples, applied.
Case a100_case(const char* spec, int i, Rng& rng) {
  Case c;
  c.sg = testing::spec_subgraph(spec);
  c.space = std::make_unique<Space>(analyze(*c.sg, cuda_target_info("a100")));
  c.schedule = i == 0 ? c.space->heuristic() : *c.space->sample(rng);
  c.applied = apply(c.schedule, *c.sg, c.space->analysis());
  return c;
}

TEST(GpuApplySource, PrintedSourceMatchesApply) {
  std::vector<Case> cases;
  Rng rng(91);
  bool shared = false, blocks = false;
  for (const char* spec : kSpecs) {
    for (int i = 0; i < kPerSpec; ++i) {
      Case c = a100_case(spec, i, rng);
      ASSERT_TRUE(c.applied.ok) << c.applied.error;
      shared |= c.applied.source.find("store_in(MemoryType::GPUShared)") != std::string::npos;
      blocks |= c.applied.source.find(".gpu_blocks(") != std::string::npos;
      cases.push_back(std::move(c));
    }
  }
  EXPECT_TRUE(shared) << "no sampled schedule stages a Func in shared memory";
  EXPECT_TRUE(blocks);
  expect_printed_matches_apply(cases, "ktune_printed_gpu_schedules");
}

// Starved reductions: few long rows (softmax), few columns summed over many rows, and a
// reduction with two pure loops (two block loops in the intermediate).
const char* kStarvedSpecs[] = {
    R"({"name": "sm", "inputs": [{"name": "x", "shape": [12, 2048]}],
        "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "cs", "inputs": [{"name": "m", "shape": [1024, 96]}],
        "ops": [{"op": "reduce_sum", "inputs": ["m"], "output": "s", "axes": [0]}], "outputs": ["s"]})",
    R"({"name": "rs", "inputs": [{"name": "t", "shape": [3, 5, 1024]}],
        "ops": [{"op": "reduce_max", "inputs": ["t"], "output": "m", "axes": [2]}], "outputs": ["m"]})",
};

TEST(GpuApplySource, PrintedRFactorSourceMatchesApply) {
  std::vector<Case> cases;
  Rng rng(17);
  int rfactored = 0;
  for (const char* spec : kStarvedSpecs) {
    for (int i = 0; i < kPerSpec; ++i) {
      Case c = a100_case(spec, i, rng);
      ASSERT_TRUE(c.applied.ok) << c.applied.error;
      const bool has = c.applied.source.find(".rfactor(") != std::string::npos;
      if (i == 0) {
        EXPECT_TRUE(has) << "the heuristic splits a starved reduction\n" << c.applied.source;
      }
      rfactored += has;
      EXPECT_EQ(lower(c.applied, c.space->analysis().target.halide_target).value_or(""), "") << c.applied.source;
      cases.push_back(std::move(c));
    }
  }
  EXPECT_GT(rfactored, static_cast<int>(std::size(kStarvedSpecs))) << "sampled schedules use rfactor too";
  expect_printed_matches_apply(cases, "ktune_printed_gpu_rfactor_schedules");
}

}  // namespace
}  // namespace ktune::scheduler
