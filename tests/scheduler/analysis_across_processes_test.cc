// The dependence analysis of a Generator gives one answer wherever it runs: in a fresh
// process, and in one where other pipelines were built first (Halide's name counters have
// moved). That answer is the right one (the scans of tests/generators/two_scans.cc carry a
// dependence along their rows only), and the heuristic never runs a loop that carries one
// in parallel or vectorized, so tune, bench, space and the plugin agree on its schedule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include "scheduler/analysis.h"
#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

constexpr char kChildVariable[] = "KTUNE_TEST_ANALYSIS_VERDICTS";
constexpr char kBegin[] = "--- verdicts ---\n";
constexpr char kEnd[] = "--- end ---\n";

std::unique_ptr<subgraphs::GeneratorSubgraph> load(const std::string& generator) {
  return subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":" + generator, {});
}

// One line per update: "f stage 1: r$x carries, v -, v_3 -", and the isl status.
std::string dependence_verdicts(const Analysis& a) {
  std::string out = "isl " + a.isl_status + "\n";
  for (const FuncAnalysis& f : a.funcs) {
    for (const StageAnalysis& st : f.stages) {
      if (st.stage == 0) continue;
      out += f.name + " stage " + std::to_string(st.stage) + ":";
      for (const LoopAnalysis& l : st.loops) out += " " + l.name + (l.carries_dependence ? " carries," : " -,");
      out += "\n";
    }
  }
  return out;
}

std::string verdicts_of(const std::string& generator) {
  return dependence_verdicts(analyze(*load(generator), testing::test_target()));
}

// The verdicts a fresh process of this test binary prints for `generator`.
std::string verdicts_in_fresh_process(const std::string& generator) {
  std::array<char, 4096> exe{};
  const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n <= 0) return "cannot find this test binary";
  const std::string command = std::string(kChildVariable) + "=" + generator + " '" + std::string(exe.data(), n) +
                              "' --gtest_filter=AnalysisAcrossProcesses.OneVerdictInEveryProcess 2>&1";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    std::array<char, 4096> chunk{};
    while (size_t got = fread(chunk.data(), 1, chunk.size(), p)) out.append(chunk.data(), got);
    pclose(p);
  }
  const size_t begin = out.find(kBegin), end = out.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos) return "the child printed no verdicts: " + out;
  return out.substr(begin + sizeof(kBegin) - 1, end - begin - (sizeof(kBegin) - 1));
}

TEST(AnalysisAcrossProcesses, OneVerdictInEveryProcess) {
  if (const char* generator = std::getenv(kChildVariable)) {
    // The child: a fresh process, nothing built before this Generator.
    std::printf("%s%s%s", kBegin, verdicts_of(generator).c_str(), kEnd);
    return;
  }
  // Every test Generator with update definitions: scans, scatters, window reductions.
  for (const std::string generator :
       {"ktune_two_scans", "ktune_recursive_filter", "ktune_histogram", "ktune_tuple_stats", "ktune_patch_search"}) {
    const std::string fresh = verdicts_in_fresh_process(generator);
    // Other pipelines built first, the same Generator among them: every counter has moved.
    for (const char* other : {"ktune_two_scans", "ktune_pyramid", "ktune_recursive_filter"}) load(other)->build();
    EXPECT_EQ(verdicts_of(generator), fresh) << generator;
    EXPECT_EQ(verdicts_of(generator), verdicts_of(generator)) << generator;
  }
}

TEST(AnalysisAcrossProcesses, TwoScansCarryADependenceAlongTheirRowsOnly) {
  const Analysis a = analyze(*load("ktune_two_scans"), testing::test_target());
  EXPECT_EQ(a.isl_status, "ok");
  int scans = 0;
  for (const FuncAnalysis& f : a.funcs) {
    for (const StageAnalysis& st : f.stages) {
      if (st.stage == 0) continue;
      ++scans;
      for (const LoopAnalysis& l : st.loops) {
        EXPECT_EQ(l.carries_dependence, l.is_reduction) << f.name << " stage " << st.stage << " loop " << l.name;
      }
    }
  }
  EXPECT_EQ(scans, 4) << dependence_verdicts(a);
}

TEST(AnalysisAcrossProcesses, TheHeuristicOfEveryScanOrScatterIsValid) {
  for (const char* generator :
       {"ktune_two_scans", "ktune_recursive_filter", "ktune_histogram", "ktune_tuple_stats", "ktune_patch_search"}) {
    const Space space(analyze(*load(generator), testing::test_target()));
    const Schedule heuristic = space.heuristic();
    EXPECT_EQ(space.validate(heuristic), std::nullopt) << generator;
  }
}

}  // namespace
}  // namespace ktune::scheduler
