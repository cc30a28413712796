// The plugin's path from a Generator's pipeline to a tuned schedule, run in-process: the
// demo Generator is built with auto_schedule on and a test autoscheduler that calls the
// plugin's code, as libautoschedule_ktune.so's hook does inside a Generator.
#include "tools/autoschedule_ktune/tuned_schedule.h"

#include <Halide.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <mutex>

#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "schedule_store/db_records.h"
#include "subgraphs/generator_loader.h"
#include "targets/host_detect.h"
#include "tools/autoschedule_ktune/ktune_autoscheduler.h"
#include "tuning_db/tuning_db.h"
#include "common/halide_version.h"

namespace ktune::autoschedule {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Hook = std::function<void(const Halide::Pipeline&, const Halide::Target&, const Halide::MachineParams&,
                                Halide::AutoSchedulerResults*)>;

constexpr const char* kGenerator = "ktune_plugin_demo";

Hook& current_hook() {
  static Hook hook;
  return hook;
}

// Builds the demo Generator with `params`, auto_schedule on, running `hook` as its
// autoscheduler; the Generator then lowers whatever schedule the hook left.
void build_demo(const std::map<std::string, std::string>& params, Hook hook) {
  subgraphs::load_generator_library(KTUNE_PLUGIN_DEMO_GENERATOR);
  static std::once_flag once;
  std::call_once(once, [] {
    Halide::Pipeline::add_autoscheduler("ktune_test_hook", [](const Halide::Pipeline& p, const Halide::Target& t,
                                                              const Halide::MachineParams& mp,
                                                              Halide::AutoSchedulerResults* r) { current_hook()(p, t, mp, r); });
  });
  current_hook() = std::move(hook);
  Halide::Pipeline::set_default_autoscheduler_name("ktune_test_hook");
  auto gen = Halide::Internal::GeneratorRegistry::create(kGenerator,
                                                         Halide::GeneratorContext(Halide::get_host_target(), true));
  Halide::Internal::GeneratorParamsMap values;
  for (const auto& [k, v] : params) values[k] = Halide::Internal::StringOrLoopLevel(v);
  gen->set_generator_param_values(values);
  gen->build_module(kGenerator);
}

// What the plugin finds for the demo Generator built with `params`.
TunedLookup lookup(const std::map<std::string, std::string>& params, const PluginConfig& config) {
  TunedLookup found;
  build_demo(params, [&](const Halide::Pipeline& p, const Halide::Target& t, const Halide::MachineParams&,
                         Halide::AutoSchedulerResults*) { found = apply_tuned_schedule(p, t, kGenerator, config); });
  return found;
}

// What the whole autoscheduler hands Halide for the demo Generator built with `params`.
Halide::AutoSchedulerResults autoschedule_demo(const std::map<std::string, std::string>& params,
                                               const PluginConfig& config) {
  Halide::AutoSchedulerResults results;
  build_demo(params, [&](const Halide::Pipeline& p, const Halide::Target& t, const Halide::MachineParams& mp,
                         Halide::AutoSchedulerResults* r) {
    autoschedule(p, t, mp, config, kGenerator, r);
    results = *r;
  });
  return results;
}

std::string demo_ref() { return std::string(KTUNE_PLUGIN_DEMO_GENERATOR) + ":" + kGenerator; }

class TunedSchedule : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = (std::filesystem::temp_directory_path() /
                ("ktune_plugin_tuned_" + std::to_string(::getpid()) + ".db")).string();
    remove_db();
  }
  void TearDown() override { remove_db(); }
  void remove_db() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + suffix);
  }

  // Stores `schedule` for the demo workload on the host with a fixed median.
  void store(const subgraphs::Subgraph& sg, const scheduler::Schedule& schedule) {
    tuning_db::OpenOptions open;
    open.versions = {KTUNE_VERSION, ktune::kHalideVersion};  // what the plugin runs as: the rows are not stale
    tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path_, open);
    tuning_db::MeasurementRecord m;
    m.device_id = db.upsert_device(schedule_store::device_record(targets::detect_host_device()));
    m.schedule_id = db.upsert_schedule(db.upsert_workload(schedule_store::workload_record(sg)), schedule.hash(),
                                       schedule.to_json().dump());
    m.median_ns = 12345;
    m.spread_ns = 10;
    m.repeats = 3;
    db.record_measurement(m);
  }

  PluginConfig config() const {
    PluginConfig c;
    c.db = db_path_;
    c.fallback = "Mullapudi2016";
    return c;
  }

  std::string db_path_;
};

TEST_F(TunedSchedule, PluginKeyEqualsTheKeyOfTheGeneratorLoadedByKtune) {
  PluginConfig absent;
  absent.db = "/nonexistent/tuning.db";
  for (const std::map<std::string, std::string>& params :
       {std::map<std::string, std::string>{}, std::map<std::string, std::string>{{"width", "200"}}}) {
    const auto sg = subgraphs::load_generator_subgraph(demo_ref(), params);
    const TunedLookup found = lookup(params, absent);
    EXPECT_EQ(found.workload_key, sg->key().key);
    EXPECT_EQ(found.shapes, sg->key().shapes);
    EXPECT_FALSE(found.applied);
    EXPECT_THAT(found.reason, HasSubstr("does not exist"));
  }
  EXPECT_NE(lookup({}, absent).workload_key, lookup({{"width", "200"}}, absent).workload_key);
}

// KTUNE_INPUTS=input=0.5:2 gives the plugin the key `ktune tune --input-range input=0.5,2`
// stored; without it the plugin computes the default range's key.
TEST_F(TunedSchedule, InputRangesFromKtuneInputsGiveTheKeyOfTheSameRangeInKtune) {
  PluginConfig absent;
  absent.db = "/nonexistent/tuning.db";
  const auto plain = subgraphs::load_generator_subgraph(demo_ref(), {});
  const auto ranged = subgraphs::load_generator_subgraph(demo_ref(), {}, {}, {{"input", {0.5, 2}}});
  ASSERT_NE(plain->key().key, ranged->key().key);
  PluginConfig with_range = absent;
  with_range.input_ranges = {{"input", {0.5, 2}}};
  EXPECT_EQ(lookup({}, with_range).workload_key, ranged->key().key);
  EXPECT_EQ(lookup({}, with_range).shapes, ranged->key().shapes);
  EXPECT_EQ(lookup({}, absent).workload_key, plain->key().key);
  // A range for an input the pipeline does not have: no key, and the reason names it.
  PluginConfig wrong = absent;
  wrong.input_ranges = {{"alpha", {0, 1}}};
  EXPECT_THAT(lookup({}, wrong).reason, HasSubstr("no input buffer named \"alpha\""));
  // The warning's tune command tunes the workload the plugin looked for.
  EXPECT_THAT(fallback_warning(kGenerator, "untuned", true, "Adams2019", "", {}, tune_input_flags(with_range)),
              HasSubstr("ktune tune --generator libgens.so:ktune_plugin_demo --input-range input=0.5,2 --db tuning.db"));
}

TEST_F(TunedSchedule, AppliesTheStoredScheduleAndReturnsItsSource) {
  const auto sg = subgraphs::load_generator_subgraph(demo_ref(), {});
  const scheduler::Space space(
      scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  const scheduler::Schedule schedule = space.heuristic();
  store(*sg, schedule);
  const scheduler::ApplyResult expected = scheduler::apply(schedule, *sg, space.analysis());
  ASSERT_TRUE(expected.ok) << expected.error;

  const Halide::AutoSchedulerResults r = autoschedule_demo({}, config());
  EXPECT_EQ(r.scheduler_name, "Ktune");
  EXPECT_THAT(r.schedule_source, HasSubstr(expected.source));
  EXPECT_THAT(r.schedule_source, HasSubstr("// ktune: tuned schedule " + schedule.hash() + " for " + kGenerator));
  EXPECT_THAT(r.schedule_source, HasSubstr("workload key " + sg->key().key));
  EXPECT_THAT(r.schedule_source, HasSubstr("measured median 12345 ns"));
  EXPECT_THAT(r.schedule_source, HasSubstr(targets::device_key(targets::detect_host_device())));
  EXPECT_THAT(r.schedule_source, HasSubstr("::Halide::Func output = pipeline.get_func("));
}

TEST_F(TunedSchedule, AnUntunedShapeFallsBackWithAWarningThatSaysHowToTuneIt) {
  const auto sg = subgraphs::load_generator_subgraph(demo_ref(), {});
  const scheduler::Space space(
      scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  store(*sg, space.heuristic());

  const TunedLookup found = lookup({{"width", "200"}}, config());
  EXPECT_FALSE(found.applied);
  EXPECT_TRUE(found.untuned);
  EXPECT_THAT(found.reason, HasSubstr("no tuned schedule for ktune_plugin_demo"));

  const Halide::AutoSchedulerResults r = autoschedule_demo({{"width", "200"}}, config());
  EXPECT_EQ(r.scheduler_name, "Mullapudi2016");
  EXPECT_THAT(r.schedule_source, HasSubstr("// ktune: warning: no tuned schedule for ktune_plugin_demo"));
  EXPECT_THAT(r.schedule_source, HasSubstr("with Mullapudi2016 instead"));
  EXPECT_THAT(r.schedule_source, HasSubstr("ktune tune --generator libgens.so:ktune_plugin_demo"));
  EXPECT_THAT(r.schedule_source, Not(HasSubstr("// ktune: tuned schedule")));
}

TEST_F(TunedSchedule, AStoredScheduleHalideRejectsLeavesThePipelineToTheFallback) {
  const auto sg = subgraphs::load_generator_subgraph(demo_ref(), {});
  const scheduler::Space space(
      scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  scheduler::Schedule broken = space.heuristic();
  ASSERT_FALSE(broken.funcs.empty());
  broken.funcs[0].func = "no_such_func";
  store(*sg, broken);

  const TunedLookup found = lookup({}, config());
  EXPECT_FALSE(found.applied);
  EXPECT_THAT(found.reason, HasSubstr("no longer applies"));
  // The fallback schedules a pipeline nothing touched (Halide would reject it otherwise).
  EXPECT_EQ(autoschedule_demo({}, config()).scheduler_name, "Mullapudi2016");
}

TEST_F(TunedSchedule, WithoutKtuneDbTheWarningSaysSo) {
  PluginConfig c = config();
  c.db.clear();
  const TunedLookup found = lookup({}, c);
  EXPECT_FALSE(found.applied);
  EXPECT_THAT(found.reason, HasSubstr("KTUNE_DB is not set"));
  const std::string warning = fallback_warning(kGenerator, found.reason, found.untuned, "Adams2019", "", {});
  EXPECT_THAT(warning, HasSubstr("KTUNE_DB is not set"));
  EXPECT_THAT(warning, HasSubstr("; scheduling ktune_plugin_demo with Adams2019 instead"));
  EXPECT_THAT(warning, Not(HasSubstr("ktune tune")));
  EXPECT_THAT(fallback_warning(kGenerator, found.reason, found.untuned, "none", "", {}),
              HasSubstr("ktune: error: KTUNE_DB is not set"));
}

// Pipelines ktune cannot describe fall back, with the reason the Generator author can act on.
TEST_F(TunedSchedule, APipelineKtuneCannotDescribeFallsBackAndSaysWhy) {
  Halide::Var x("x");
  Halide::ImageParam wide(Halide::Int(64), 1, "wide");
  Halide::Func narrowed("narrowed");
  narrowed(x) = Halide::cast<float>(wide(x));
  wide.set_estimates({{0, 64}});
  narrowed.set_estimates({{0, 64}});
  const TunedLookup i64 = apply_tuned_schedule(Halide::Pipeline(narrowed), Halide::get_host_target(), "narrow", config());
  EXPECT_FALSE(i64.applied);
  EXPECT_TRUE(i64.workload_key.empty());
  EXPECT_THAT(i64.reason, HasSubstr("cannot compute the workload key"));
  EXPECT_THAT(i64.reason, HasSubstr("input \"wide\" has type int64_t"));

  Halide::ImageParam in(Halide::Float(32), 1, "in");
  Halide::Func doubled("doubled");
  doubled(x) = in(x) * 2.0f;
  const TunedLookup no_estimate =
      apply_tuned_schedule(Halide::Pipeline(doubled), Halide::get_host_target(), "doubled", config());
  EXPECT_FALSE(no_estimate.applied);
  EXPECT_THAT(no_estimate.reason, HasSubstr("output \"doubled\" has no estimate for dimension 0"));
}

}  // namespace
}  // namespace ktune::autoschedule
