#include "subgraphs/canonical_names.h"

#include <gtest/gtest.h>

#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {
namespace {

// A pipeline written as users write them: a boundary condition (a Func Halide names
// "lambda_N" or "repeat_edge$N"), Funcs and Vars without names, and an unnamed RDom. The
// names are made the way Halide names unnamed objects in a build without debug info.
Halide::Pipeline unnamed_pipeline() {
  using Halide::Internal::unique_name;
  Halide::ImageParam input(Halide::Float(32), 2, "input");
  Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(input);
  Halide::Var x(unique_name('v')), y(unique_name('v'));
  Halide::Func blur(unique_name('f')), total(unique_name('f'));
  blur(x, y) = clamped(x - 1, y) + clamped(x + 1, y);
  Halide::RDom r(0, 8, unique_name('r'));
  total(x, y) = 0.0f;
  total(x, y) += blur(x + r, y);
  total.set_estimates({{0, 16}, {0, 16}});
  return Halide::Pipeline(total);
}

std::vector<FuncNames> names_of(const Halide::Pipeline& p) { return canonical_names(pipeline_funcs(built_from_pipeline(p))); }

TEST(CanonicalNames, AreTheSameInEveryBuildWhatEverHalidesCountersSay) {
  const std::vector<FuncNames> first = names_of(unnamed_pipeline());
  for (int i = 0; i < 3; ++i) unnamed_pipeline();  // advance Halide's counters
  const std::vector<FuncNames> later = names_of(unnamed_pipeline());
  ASSERT_EQ(first.size(), later.size());
  for (size_t f = 0; f < first.size(); ++f) {
    EXPECT_EQ(first[f].name, later[f].name);
    EXPECT_NE(first[f].halide_name, later[f].halide_name) << "Halide's own names move between builds";
    EXPECT_EQ(first[f].args, later[f].args);
    ASSERT_EQ(first[f].stages.size(), later[f].stages.size());
    for (size_t s = 0; s < first[f].stages.size(); ++s) {
      ASSERT_EQ(first[f].stages[s].loops.size(), later[f].stages[s].loops.size());
      for (size_t l = 0; l < first[f].stages[s].loops.size(); ++l) {
        EXPECT_EQ(first[f].stages[s].loops[l].first, later[f].stages[s].loops[l].first);
      }
    }
  }
}

TEST(CanonicalNames, DropCountersAndTranslateBackToThisBuild) {
  const std::vector<FuncNames> names = names_of(unnamed_pipeline());
  // repeat_edge, blur (unnamed: "f"), total (unnamed: "f_2").
  std::string all;
  for (const FuncNames& n : names) all += n.name + "=" + n.halide_name + " ";
  ASSERT_EQ(names.size(), 3u) << all;
  EXPECT_EQ(names[0].name, "repeat_edge");
  EXPECT_EQ(names[1].name, "f");
  EXPECT_EQ(names[2].name, "f_2");
  EXPECT_EQ(names[2].args, (std::vector<std::string>{"v", "v_2"}));
  const StageLoopNames& update = names[2].stages[1];
  ASSERT_EQ(update.loops.size(), 3u);
  EXPECT_EQ(update.loops[0].first, "r$x");
  EXPECT_EQ(update.canonical(update.loops[0].second), "r$x");
  EXPECT_EQ(update.halide("r$x"), update.loops[0].second);
  EXPECT_NE(update.halide("r$x"), "r$x");
  EXPECT_EQ(update.halide("r_x_o"), "r_x_o") << "split products keep the schedule's names";
}

TEST(CanonicalNames, FuncBaseKeepsUserNamesAndDropsCounters) {
  EXPECT_EQ(canonical_func_base("blur_x"), "blur_x");
  EXPECT_EQ(canonical_func_base("blur_x$12"), "blur_x");
  // An rfactor intermediate of a uniquified Func is named as it would be without the counter.
  EXPECT_EQ(canonical_func_base("y_max$233_intm"), "y_max_intm");
  EXPECT_EQ(canonical_func_base("y_max_intm"), "y_max_intm");
  EXPECT_EQ(canonical_func_base("f123"), "f");
  EXPECT_EQ(canonical_func_base("lambda_7"), "lambda");
  EXPECT_EQ(canonical_func_base("level1"), "level1");
  EXPECT_EQ(canonical_func_base("a.b"), "a_b");
}

}  // namespace
}  // namespace ktune::subgraphs
