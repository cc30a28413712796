// The allocation regime of a user's AOT build: glibc's mmap threshold rising with freed
// mapped blocks, heap memory kept while one block is free and returned once several are,
// blocks over 32 MiB mapped on every call, and Halide's alignment and slack.
#include "measure/internal/aot_allocator.h"

#include <Halide.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace ktune::measure::internal {
namespace {

constexpr size_t kMiB = 1024 * 1024;

class AotAllocator : public ::testing::Test {
 protected:
  void SetUp() override { reset_aot_allocator(); }
  void TearDown() override { reset_aot_allocator(); }
};

TEST_F(AotAllocator, AFreedMappedBlockRaisesTheThresholdAndOneBlockIsThenReused) {
  void* first = aot_malloc(1 * kMiB);
  EXPECT_EQ(aot_allocator_state().fresh_maps, 1u);
  aot_free(first);
  EXPECT_EQ(aot_allocator_state().mmap_threshold, 1 * kMiB);

  // Below the raised threshold the block comes from the heap: mapped once, then kept.
  void* second = aot_malloc(1 * kMiB - 4096);
  aot_free(second);
  const size_t maps = aot_allocator_state().fresh_maps;
  EXPECT_GT(aot_allocator_state().retained_bytes, 0u);
  void* third = aot_malloc(1 * kMiB - 4096);
  aot_free(third);
  EXPECT_EQ(aot_allocator_state().fresh_maps, maps) << "a single freed heap block is reused without new pages";
}

TEST_F(AotAllocator, SeveralBlocksFreedTogetherAreReturnedAndFaultedInAgain) {
  aot_free(aot_malloc(1 * kMiB));  // threshold 1 MiB, trim threshold 2 MiB
  for (int call = 0; call < 3; ++call) {
    const size_t maps = aot_allocator_state().fresh_maps;
    void* a = aot_malloc(1 * kMiB - 4096);
    void* b = aot_malloc(1 * kMiB - 4096);
    aot_free(a);
    aot_free(b);
    if (call > 0) EXPECT_EQ(aot_allocator_state().fresh_maps, maps + 2) << "call " << call;
    EXPECT_EQ(aot_allocator_state().retained_bytes, 0u) << "more than the trim threshold was free";
  }
}

TEST_F(AotAllocator, BlocksAbove32MiBAreMappedOnEveryCall) {
  for (int call = 0; call < 3; ++call) aot_free(aot_malloc(40 * kMiB));
  EXPECT_EQ(aot_allocator_state().fresh_maps, 3u);
  EXPECT_EQ(aot_allocator_state().mmap_threshold, 128 * 1024u) << "glibc raises it only up to 32 MiB";
}

TEST_F(AotAllocator, BlocksAreAlignedWithReadableSlackOnBothSides) {
  for (size_t size : {size_t{1}, size_t{100}, size_t{4096}, size_t{200 * 1024}, 3 * kMiB + 5}) {
    auto* p = static_cast<unsigned char*>(aot_malloc(size));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u) << size;
    std::memset(p - 8, 1, size + 16);  // Halide may read 8 bytes before and after
    aot_free(p);
  }
}

TEST_F(AotAllocator, AJitPipelineAllocatesItsIntermediatesThroughTheModel) {
  Halide::Var x("x"), y("y");
  Halide::Func big("big"), out("out");
  big(x, y) = Halide::cast<float>(x + y);
  out(x, y) = big(x, y) * 2.0f;
  big.compute_root();  // 1024 x 1024 floats: a 4 MiB intermediate
  Halide::Pipeline pipeline(out);
  use_aot_allocation(pipeline);
  Halide::Buffer<float> result(1024, 1024);
  pipeline.realize(result);
  EXPECT_EQ(aot_allocator_state().fresh_maps, 1u);
  EXPECT_EQ(result(3, 4), 14.0f);
}

}  // namespace
}  // namespace ktune::measure::internal
