// The Generators of tests/generators, written the way people write image pipelines, load
// as ktune subgraphs: every type, scalar inputs at their estimates, inputs sized and placed
// by what the outputs read, several outputs, and a reference that matches the algorithm.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "subgraphs/check.h"
#include "subgraphs/generator_loader.h"

namespace ktune::subgraphs {
namespace {

std::unique_ptr<GeneratorSubgraph> load(const std::string& name, const std::map<std::string, std::string>& params = {}) {
  return load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":" + name, params);
}

class RealGenerator : public ::testing::TestWithParam<std::string> {};

TEST_P(RealGenerator, ChecksAgainstItsReferenceWithStableNamesAndKey) {
  const auto sg = load(GetParam());
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  // A second build in the same process (Halide's counters have moved) names every Func and
  // loop the same way and gives the same key.
  const auto again = load(GetParam());
  EXPECT_EQ(sg->key().key, again->key().key);
  ASSERT_EQ(sg->stages().size(), again->stages().size());
  std::set<std::string> funcs;
  for (size_t i = 0; i < sg->stages().size(); ++i) {
    EXPECT_EQ(sg->stages()[i].func, again->stages()[i].func);
    EXPECT_EQ(sg->stages()[i].func.find('$'), std::string::npos) << sg->stages()[i].func;
    for (size_t l = 0; l < sg->stages()[i].reduction_loops.size(); ++l) {
      EXPECT_EQ(sg->stages()[i].reduction_loops[l].name, again->stages()[i].reduction_loops[l].name);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TestGenerators, RealGenerator,
                         ::testing::Values("ktune_raw_denoise", "ktune_pyramid", "ktune_halo_blur", "ktune_histogram",
                                           "ktune_recursive_filter", "ktune_tuple_stats"));

TEST(RealGenerators, IntegerImagesAndScalarsAtTheirEstimates) {
  const auto sg = load("ktune_raw_denoise");
  ASSERT_EQ(sg->inputs().size(), 1u);
  EXPECT_EQ(sg->inputs()[0].dtype, DType::kU16);
  EXPECT_EQ(sg->outputs()[0].dtype, DType::kU16);
  ASSERT_EQ(sg->scalars().size(), 2u);
  EXPECT_EQ(sg->scalars()[0].name, "black_level");
  EXPECT_EQ(sg->scalars()[0].value, 64.0);
  EXPECT_EQ(sg->scalars()[1].value, 1.5);
  // Filtered in f32 and stored as u16: rare off-by-one rounding between schedules is allowed.
  EXPECT_TRUE(sg->outputs()[0].rounded_from_float);
  // The boundary condition reads the input only inside it: the input is the output's size.
  EXPECT_EQ(sg->inputs()[0].shape, (Shape{384, 512}));
  // Seeded u16 data covers the range, not [-1, 1).
  const Tensor in = sg->make_inputs(1)[0];
  double high = 0;
  for (size_t i = 0; i < in.size(); ++i) high = std::max(high, in.at(i));
  EXPECT_GT(high, 60000);
}

TEST(RealGenerators, AHaloIsPlacedWhereTheOutputsReadIt) {
  const auto sg = load("ktune_halo_blur", {{"width", "100"}, {"height", "60"}});
  ASSERT_EQ(sg->outputs().size(), 1u);
  EXPECT_EQ(sg->outputs()[0].mins, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(sg->outputs()[0].shape, (Shape{60, 100}));
  // output(x, y) reads input(x - 2 .. x + 2, y - 2 .. y + 2) over [2, 101] x [2, 61].
  EXPECT_EQ(sg->inputs()[0].mins, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(sg->inputs()[0].shape, (Shape{64, 104}));
  EXPECT_TRUE(check_subgraph(*sg, 2).passed());
}

TEST(RealGenerators, ScatterWithTwoOutputsOfTwoTypes) {
  const auto sg = load("ktune_histogram");
  ASSERT_EQ(sg->outputs().size(), 2u);
  EXPECT_EQ(sg->outputs()[0].name, "hist_out");
  EXPECT_EQ(sg->outputs()[0].dtype, DType::kI32);
  EXPECT_EQ(sg->outputs()[0].shape, (Shape{256}));
  EXPECT_EQ(sg->outputs()[1].dtype, DType::kU8);
  // Every pixel lands in one bin.
  const std::vector<Tensor> out = sg->reference(sg->make_inputs(3));
  double total = 0;
  for (size_t i = 0; i < out[0].size(); ++i) total += out[0].at(i);
  EXPECT_EQ(total, 512.0 * 384.0);
}

TEST(RealGenerators, ReductionExtentsComeFromTheInputSizes) {
  const auto sg = load("ktune_recursive_filter");
  bool found = false;
  for (const StageInfo& st : sg->stages()) {
    for (const LoopInfo& l : st.reduction_loops) {
      EXPECT_EQ(l.extent, 511) << st.func << " " << l.name;  // RDom r(1, input.width() - 1)
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ktune::subgraphs
