// Tests of bench/roofline.cc: the microbenchmarks give positive, finite limits and
// the roofline time is the larger of the compute and memory bounds.
#include "bench/roofline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "subgraphs/spec_subgraph.h"

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

TEST(Roofline, ASubgraphsLimitsApartAndTogether) {
  const auto sg = subgraphs::load_spec_subgraph(KTUNE_SOURCE_DIR "/tests/data/tiny_matmul.json");
  Roofline r;
  r.peak_flops = 100e9;
  r.bandwidth_bytes = 10e9;
  // 64 x 128 outputs of 96 multiply-adds; 64 x 96 + 96 x 128 + 64 x 128 floats.
  EXPECT_DOUBLE_EQ(subgraph_compute_ns(r, *sg), 2.0 * 64 * 128 * 96 / 100.0);
  EXPECT_DOUBLE_EQ(subgraph_memory_ns(r, *sg), 4.0 * (64 * 96 + 96 * 128 + 64 * 128) / 10.0);
  EXPECT_DOUBLE_EQ(subgraph_roofline_ns(r, *sg), std::max(subgraph_compute_ns(r, *sg), subgraph_memory_ns(r, *sg)));
  r.bandwidth_bytes = 1000e9;
  EXPECT_DOUBLE_EQ(subgraph_roofline_ns(r, *sg), subgraph_compute_ns(r, *sg)) << "compute-bound at a higher bandwidth";
}

TEST(Roofline, LowPrecisionUsesItsDotProductPeakWhereMeasured) {
  Roofline r;
  r.peak_flops = 100e9;
  r.bandwidth_bytes = 10e9;
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6, subgraphs::DType::kBF16), 1e7);  // no bf16 peak: the f32 one
  r.peak_bf16_flops = 200e9;
  r.peak_int8_ops = 400e9;
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6, subgraphs::DType::kBF16), 5e6);
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6, subgraphs::DType::kU8), 2.5e6);
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6, subgraphs::DType::kI8), 2.5e6);
  EXPECT_DOUBLE_EQ(r.time_ns(1e9, 1e6, subgraphs::DType::kF16), 1e7);  // f16 computes in f32
  EXPECT_NE(r.describe().find("bf16 dot 200.0 GFLOP/s"), std::string::npos) << r.describe();
}

TEST(Roofline, DotProductPeaksAreMeasuredWhereTheCpuHasThem) {
  RooflineOptions options;
  options.threads = 1;
  options.trials = 1;
  options.triad_elements = 1 << 20;
  options.fma_iterations = 200000;
  const Roofline r = measure_roofline(options);
  __builtin_cpu_init();
  EXPECT_EQ(r.peak_bf16_flops > 0, __builtin_cpu_supports("avx512bf16") != 0);
  EXPECT_EQ(r.peak_int8_ops > 0, __builtin_cpu_supports("avx512vnni") != 0);
  // Where both exist, a u8 dot product does twice the work of a bf16 one per instruction.
  if (r.peak_int8_ops > 0 && r.peak_bf16_flops > 0) {
    EXPECT_GT(r.peak_int8_ops, r.peak_bf16_flops);
  }
}

}  // namespace
}  // namespace ktune::bench
