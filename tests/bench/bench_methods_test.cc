// Tests of bench/bench_methods.cc: the table is the one list of bench methods. A row added
// to a copy of it (a trivial library baseline) is in the help text, accepted by the
// validation and shown under its display name with nothing else changed; an unknown name
// is refused with an error naming every valid one.
#include "bench/bench_methods.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace ktune::bench {
namespace {

using ::testing::HasSubstr;

// A baseline that runs on nothing: what a new library's file would define.
LibraryMethod trivial_method(const PlanMatch&) {
  LibraryMethod m;
  m.method = "trivial";
  m.unsupported = "maps onto nothing";
  return m;
}

TEST(BenchMethods, NamesComeFromTheTableInItsOrder) {
  const std::vector<std::string>& names = bench_method_names();
  ASSERT_EQ(names.size(), bench_methods().size());
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], bench_methods()[i].name);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "names are unique";
  EXPECT_EQ(names.front(), "ktune") << "ratios are to ktune, the first column";
}

TEST(BenchMethods, EveryRowSaysWhatItMeasuresAndHowItIsBuilt) {
  bool library_seen = false;
  for (const BenchMethod& m : bench_methods()) {
    EXPECT_GT(std::string(m.display).size(), 0u) << m.name;
    EXPECT_GT(std::string(m.measures).size(), 10u) << m.name;
    EXPECT_GT(std::string(m.built).size(), 10u) << m.name;
    EXPECT_EQ(m.source == MethodSource::kLibrary, m.library != nullptr) << m.name << ": a library row names its call";
    if (m.source == MethodSource::kOwnSchedule) {
      EXPECT_TRUE(m.needs_generator) << m.name;
    }
    // The bench builds the Halide methods together before it prepares the libraries.
    if (m.source != MethodSource::kLibrary) {
      EXPECT_FALSE(library_seen) << m.name << " comes after a library row";
    }
    library_seen |= m.source == MethodSource::kLibrary;
  }
  EXPECT_EQ(find_method("hand")->needs_generator, true);
  EXPECT_EQ(method_display_name("openblas"), "OpenBLAS");
  EXPECT_EQ(method_display_name("onednn"), "oneDNN");
  EXPECT_EQ(method_display_name("Adams2019"), "Adams2019");
}

TEST(BenchMethods, HelpListsEveryRowAndValidationAcceptsEach) {
  const std::string help = methods_option_help();
  for (const std::string& name : bench_method_names()) {
    EXPECT_THAT(help, HasSubstr(name));
    EXPECT_EQ(unknown_method_error({name}), "") << name;
  }
  EXPECT_EQ(help, "comma-separated subset of ktune,ktune-heuristic,expert,hand,Adams2019,Mullapudi2016,Li2018,"
                  "openblas,onednn (default: all)");
  EXPECT_EQ(unknown_method_error(bench_method_names()), "");
  EXPECT_EQ(unknown_method_error({}), "");
}

TEST(BenchMethods, AnUnknownNameIsRefusedWithTheValidOnes) {
  const std::string error = unknown_method_error({"ktune", "Halide2030"});
  EXPECT_THAT(error, HasSubstr("unknown method \"Halide2030\""));
  for (const std::string& name : bench_method_names()) EXPECT_THAT(error, HasSubstr(name));
  EXPECT_EQ(error,
            "unknown method \"Halide2030\" (expected some of ktune, ktune-heuristic, expert, hand, Adams2019, "
            "Mullapudi2016, Li2018, openblas, onednn)");
}

TEST(BenchMethods, OneRowAddsABaseline) {
  std::vector<BenchMethod> table = bench_methods();
  table.push_back({"trivial", "Trivial", "nothing: a test of the table", "trivial_method in this test",
                   MethodSource::kLibrary, false, trivial_method});
  EXPECT_THAT(methods_option_help(table), HasSubstr(",onednn,trivial (default: all)"));
  EXPECT_EQ(unknown_method_error({"trivial", "ktune"}, table), "");
  EXPECT_THAT(unknown_method_error({"nope"}, table), HasSubstr(", onednn, trivial)"));
  EXPECT_EQ(method_display_name("trivial", table), "Trivial");
  EXPECT_EQ(method_names(table).back(), "trivial");
  ASSERT_NE(find_method("trivial", table), nullptr);
  EXPECT_EQ(find_method("trivial", table)->library(PlanMatch{}).unsupported, "maps onto nothing");
  // The shipped table does not have it.
  EXPECT_NE(unknown_method_error({"trivial"}), "");
  EXPECT_EQ(method_display_name("trivial"), "trivial");
}

TEST(BenchMethods, MethodListsAreCommaSeparatedWithSpacesIgnored) {
  EXPECT_EQ(parse_method_list("ktune, hand,,Adams2019 "), (std::vector<std::string>{"ktune", "hand", "Adams2019"}));
  EXPECT_TRUE(parse_method_list("").empty());
  EXPECT_TRUE(parse_method_list(" , ").empty());
}

}  // namespace
}  // namespace ktune::bench
