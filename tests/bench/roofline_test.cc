// Tests of bench/roofline.cc: the microbenchmarks give positive, finite limits and
// the roofline time is the larger of the compute and memory bounds.
#include "bench/roofline.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ktune::bench {
namespace {

TEST(Roofline, MicrobenchmarksGivePositiveFiniteLimits) {
  RooflineOptions options;
  options.threads = 1;
  options.trials = 1;
  options.triad_elements = 1 << 20;
  options.fma_iterations = 200000;
  const Roofline r = measure_roofline(options);
  EXPECT_GT(r.peak_flops, 1e8);
  EXPECT_TRUE(std::isfinite(r.peak_flops));
  EXPECT_GT(r.bandwidth_bytes, 1e8);
  EXPECT_TRUE(std::isfinite(r.bandwidth_bytes));
  EXPECT_TRUE(r.vector_lanes == 4 || r.vector_lanes == 8 || r.vector_lanes == 16) << r.vector_lanes;
  EXPECT_EQ(r.threads, 1);
  EXPECT_EQ(r.triad_bytes, 4 << 20);
  EXPECT_NE(r.describe().find("GFLOP/s"), std::string::npos);
}

TEST(Roofline, TimeIsTheLargerBound) {
  Roofline r;
  r.peak_flops = 100e9;
  r.bandwidth_bytes = 10e9;
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6), 1e7);   // compute bound: 10 ms
  EXPECT_DOUBLE_EQ(r.time_ns(1e6, 1e9), 1e8);   // memory bound: 100 ms
}

}  // namespace
}  // namespace ktune::bench
