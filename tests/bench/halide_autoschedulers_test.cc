// Tests of bench/halide_autoschedulers.cc: machine parameters from the device, the
// Debian plugins loading, and each autoscheduler probed in a child on a tiny matmul giving
// ok (or an explicit failure), while a missing plugin is an error with the path.
#include "bench/halide_autoschedulers.h"

#include <gtest/gtest.h>

#include "subgraphs/spec_subgraph.h"

namespace ktune::bench {
namespace {

TEST(HalideAutoschedulers, MachineParamsFollowTheDevice) {
  targets::Device d;
  d.cores = 8;
  d.llc_bytes = int64_t{32} << 20;
  const AutoschedulerParams p = machine_params_for(d, 2);
  EXPECT_EQ(p.parallelism, 2);
  EXPECT_EQ(p.llc_bytes, int64_t{32} << 20);
  EXPECT_EQ(p.to_string(), "2,33554432,40");
  d.llc_bytes = -1;
  EXPECT_EQ(machine_params_for(d, 4).llc_bytes, int64_t{16} << 20);
}

TEST(HalideAutoschedulers, MissingPluginIsReported) {
  const std::string error = load_autoscheduler("Adams2019", "/nonexistent/dir");
  EXPECT_NE(error.find("/nonexistent/dir/libautoschedule_adams2019.so"), std::string::npos) << error;
}

TEST(HalideAutoschedulers, EachProbesATinyMatmulInAChild) {
  const auto sg = subgraphs::load_spec_subgraph(KTUNE_SOURCE_DIR "/tests/data/tiny_matmul.json");
  targets::Device d;
  d.llc_bytes = int64_t{8} << 20;
  for (const std::string name : {"Mullapudi2016", "Li2018", "Adams2019"}) {
    ASSERT_EQ(load_autoscheduler(name, default_plugin_dir()), "") << name;
    const ProbeResult r = probe_autoscheduler(*sg, name, machine_params_for(d, 2), "", 120000);
    EXPECT_EQ(r.status, "ok") << name << ": " << r.message;
    EXPECT_GT(r.wall_ms, 0);
  }
}

}  // namespace
}  // namespace ktune::bench
