// A user Generator built as a shared library (tests/subgraphs/data) is loaded, shown and
// checked; every bad library is a clear UserError and never takes the process down.
#include "subgraphs/generator_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "subgraphs/check.h"

namespace ktune::subgraphs {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& ref, const std::map<std::string, std::string>& params = {},
                     const std::map<std::string, std::string>& inputs = {}) {
  try {
    load_generator_subgraph(ref, params, inputs);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(GeneratorLoader, LoadsShowsAndChecksAGenerator) {
  const auto sg = load_generator_subgraph(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_blur", {{"scale", "2.5"}});
  EXPECT_EQ(sg->kind(), "generator");
  EXPECT_EQ(sg->name(), "ktune_test_blur");
  ASSERT_EQ(sg->inputs().size(), 1u);
  EXPECT_EQ(sg->inputs()[0].shape, (Shape{34, 66}));
  ASSERT_EQ(sg->outputs().size(), 1u);
  EXPECT_EQ(sg->outputs()[0].shape, (Shape{32, 64}));
  ASSERT_EQ(sg->stages().size(), 2u);
  EXPECT_EQ(sg->stages()[0].func, "blur_x");
  EXPECT_EQ(sg->stages()[0].pure_loops[0].extent, 64);
  EXPECT_EQ(sg->stages()[0].pure_loops[1].extent, 34);
  const CheckResult r = check_subgraph(*sg, 3);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
}

TEST(GeneratorLoader, ReferenceIsTheAlgorithmItself) {
  // For a generator the reference is the trivially scheduled algorithm: check one value.
  const auto sg = load_generator_subgraph(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_blur", {{"scale", "9"}});
  Tensor in{{34, 66}, std::vector<float>(34 * 66, 1.0f)};
  const auto out = sg->reference({in});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].at(0), 9.0f);  // nine ones, scaled by 9/9
}

TEST(GeneratorLoader, ParamsAndShapesChangeTheKeyButNotTheFamily) {
  const std::string ref = std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_blur";
  const auto a = load_generator_subgraph(ref, {{"width", "64"}});
  const auto b = load_generator_subgraph(ref, {{"width", "128"}});
  const auto c = load_generator_subgraph(ref, {{"scale", "3"}});
  EXPECT_NE(a->key().key, b->key().key);
  EXPECT_EQ(a->key().family_key, b->key().family_key);
  EXPECT_NE(a->key().key, c->key().key);
  EXPECT_EQ(a->key().key, load_generator_subgraph(ref, {{"width", "64"}})->key().key);
}

TEST(GeneratorLoader, ReductionWithTwoInputs) {
  const auto sg = load_generator_subgraph(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_rowsum", {});
  ASSERT_EQ(sg->inputs().size(), 2u);
  EXPECT_EQ(sg->inputs()[0].shape, (Shape{24, 40}));
  const CheckResult r = check_subgraph(*sg, 3);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
}

TEST(GeneratorLoaderErrors, MissingLibrary) {
  EXPECT_THAT(error_of("/nonexistent/libgen.so:blur"), HasSubstr("/nonexistent/libgen.so: generator library not found"));
}

TEST(GeneratorLoaderErrors, AParamThatMakesAnExtentZeroSaysSo) {
  // width=0 gives the output an estimate of extent 0: not a missing estimate.
  const std::string e = error_of(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_blur", {{"width", "0"}});
  EXPECT_THAT(e, HasSubstr("has extent 0 in dimension 0"));
  EXPECT_THAT(e, HasSubstr("extents must be at least 1"));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("no estimate")));
}

TEST(GeneratorLoaderErrors, NotASharedLibrary) {
  const std::string path = testing::TempDir() + "/not_a_library.so";
  std::ofstream(path) << "this is text, not ELF\n";
  EXPECT_THAT(error_of(path + ":blur"), HasSubstr("not a shared library"));
}

TEST(GeneratorLoaderErrors, LibraryWithoutGenerators) {
  EXPECT_THAT(error_of(std::string(KTUNE_TEST_NO_GENERATORS) + ":blur"), HasSubstr("registers no Halide generator"));
}

TEST(GeneratorLoaderErrors, ClashingGeneratorNameIsReportedNotFatal) {
  // Load the first library so its names are registered, then the clashing one.
  load_generator_library(KTUNE_TEST_GENERATORS);
  EXPECT_THAT(error_of(std::string(KTUNE_TEST_GENERATORS_CLASH) + ":ktune_test_blur"),
              HasSubstr("registers a generator name that is already registered"));
  // The process is still usable.
  EXPECT_NO_THROW(load_generator_subgraph(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_rowsum", {}));
}

TEST(GeneratorLoaderErrors, UnknownGeneratorNameListsTheRegisteredOnes) {
  const std::string msg = error_of(std::string(KTUNE_TEST_GENERATORS) + ":nope");
  EXPECT_THAT(msg, HasSubstr("no generator named \"nope\""));
  EXPECT_THAT(msg, HasSubstr("ktune_test_blur"));
}

TEST(GeneratorLoaderErrors, UnknownParameterAndMalformedRef) {
  EXPECT_THAT(error_of(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_blur", {{"bogus", "1"}}), HasSubstr("failed to build"));
  EXPECT_THAT(error_of("no_colon_here"), HasSubstr("expected LIB:NAME"));
}

TEST(GeneratorLoaderErrors, AGeneratorThatCrashesWhileBuildingIsAnErrorNotACrash) {
  const std::string msg = error_of(std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_crash");
  EXPECT_THAT(msg, HasSubstr("building generator ktune_test_crash crashed the process"));
  EXPECT_THAT(msg, HasSubstr("Segmentation fault"));
}

TEST(GeneratorLoaderScalars, AScalarWithoutEstimateMustBeGivenAndItsValueIsPartOfTheKey) {
  const std::string ref = std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_unestimated_gain";
  const std::string msg = error_of(ref);
  EXPECT_THAT(msg, HasSubstr("scalar input \"gain\" has no value"));
  EXPECT_THAT(msg, HasSubstr("--input gain=VALUE"));
  EXPECT_THAT(error_of(ref, {}, {{"gain", "fast"}}), HasSubstr("--input gain=fast: expected a f32 value"));
  EXPECT_THAT(error_of(ref, {}, {{"gian", "2"}}), HasSubstr("no scalar input named \"gian\" (its scalar inputs: gain)"));

  const auto two = load_generator_subgraph(ref, {}, {{"gain", "2"}});
  ASSERT_EQ(two->scalars().size(), 1u);
  EXPECT_EQ(two->scalars()[0].value, 2.0);
  EXPECT_NE(two->key().key, load_generator_subgraph(ref, {}, {{"gain", "3"}})->key().key);
  EXPECT_EQ(two->key().key, load_generator_subgraph(ref, {}, {{"gain", "2.0"}})->key().key);
  // The value is the one the pipeline runs at: the reference doubles the input.
  const std::vector<Tensor> in = two->make_inputs(5);
  const std::vector<Tensor> out = two->reference(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].at(7), 2.0f * in[0].at(7));
  // Sized by what the output reads: 32 elements, though the input has no estimate.
  EXPECT_EQ(two->inputs()[0].shape, (Shape{32}));
}

}  // namespace
}  // namespace ktune::subgraphs
