// The schedules written by hand under bench/expert/ and its folders of variants (the bench's
// "expert" method, --expert-dir): each names a subgraph of the suite (bench/suite/) or of its
// layouts (bench/suite_layouts/), is valid in ktune's space for this machine, and computes
// the right answer.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/user_json.h"
#include "measure/builder.h"
#include "measure/runner.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"

namespace ktune::bench {
namespace {

namespace fs = std::filesystem;

// The spec of subgraph `name` in the suite or its layouts; empty when neither has it.
fs::path spec_of(const std::string& name) {
  for (const char* folder : {"suite", "suite_layouts"}) {
    const fs::path spec = fs::path(KTUNE_SOURCE_DIR) / "bench" / folder / (name + ".json");
    if (fs::exists(spec)) return spec;
  }
  return {};
}

TEST(ExpertSchedules, EachIsValidForItsSuiteSubgraphAndCorrect) {
  const fs::path dir = fs::path(KTUNE_SOURCE_DIR) / "bench" / "expert";
  const scheduler::TargetInfo target = scheduler::target_info_from_device(targets::detect_host_device());
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    const fs::path spec = spec_of(name);
    ASSERT_FALSE(spec.empty()) << entry.path() << " names no subgraph of the suite or its layouts";
    const auto sg = subgraphs::load_spec_subgraph(spec.string());
    const scheduler::Space space(scheduler::analyze(*sg, target));
    const scheduler::Schedule s =
        scheduler::Schedule::from_json(read_user_json(entry.path().string(), "expert schedule"), entry.path().string());
    ASSERT_EQ(space.validate(s).value_or(""), "") << name;
    measure::RunOptions run;
    run.timing.min_repeats = 1;
    run.timing.min_total_ms = 0;
    measure::Runner runner(run);
    const measure::BuildBatch built = measure::build_candidates(
        {{sg.get(), s.hash(), scheduler::make_applier(s, space.analysis()), "expert"}}, measure::BuildOptions{});
    const measure::MeasureResult r = runner.run(built.candidates.at(0));
    EXPECT_TRUE(r.ok()) << name << ": " << r.message;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace ktune::bench
