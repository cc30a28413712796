#include "tools/autoschedule_ktune/fallback_autoscheduler.h"

#include <Halide.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ktune::autoschedule {
namespace {

using ::testing::HasSubstr;

// A two-stage pipeline with estimates, as autoschedulers need.
Halide::Pipeline small_pipeline() {
  Halide::ImageParam in(Halide::Float(32), 2, "in");
  Halide::Var x("x"), y("y");
  Halide::Func f("f"), g("g");
  f(x, y) = in(x, y) * 2.0f;
  g(x, y) = f(x, y) + f(x + 1, y);
  in.set_estimates({{0, 65}, {0, 64}});
  g.set_estimates({{0, 64}, {0, 64}});
  return Halide::Pipeline(g);
}

TEST(FallbackAutoscheduler, HalideShippedNamesMapToTheirPluginFiles) {
  EXPECT_EQ(halide_plugin_library("Adams2019"), "libautoschedule_adams2019.so");
  EXPECT_EQ(halide_plugin_library("Mullapudi2016"), "libautoschedule_mullapudi2016.so");
  EXPECT_EQ(halide_plugin_library("MyOwn"), "");
}

TEST(FallbackAutoscheduler, LoadsHalidesPluginAndRunsIt) {
  const Halide::AutoSchedulerResults r =
      run_fallback("Mullapudi2016", small_pipeline(), Halide::get_host_target(), Halide::MachineParams::generic());
  EXPECT_EQ(r.scheduler_name, "Mullapudi2016");
  // Halide's autoschedulers bind each Func they schedule by name, then chain directives on it.
  EXPECT_THAT(r.schedule_source, HasSubstr("Func g = pipeline.get_func("));
  EXPECT_THAT(r.schedule_source, HasSubstr(".compute_root()"));
}

TEST(FallbackAutoscheduler, NoneAndKtuneItselfAreErrors) {
  try {
    run_fallback("none", small_pipeline(), Halide::get_host_target(), Halide::MachineParams::generic());
    FAIL() << "expected an error";
  } catch (const Halide::CompileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("KTUNE_FALLBACK_AUTOSCHEDULER=none"));
  }
  EXPECT_THROW(run_fallback("Ktune", small_pipeline(), Halide::get_host_target(), Halide::MachineParams::generic()),
               Halide::CompileError);
}

}  // namespace
}  // namespace ktune::autoschedule
