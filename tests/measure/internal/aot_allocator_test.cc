// The allocation regime of a user's AOT build: glibc's mmap threshold rising with freed
// mapped blocks, heap memory kept while one block is free and returned once the trim
// threshold is free, blocks over 32 MiB mapped on every call, and Halide's alignment and slack.
#include "measure/internal/aot_allocator.h"

#include <Halide.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

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
    const AotAllocatorState before = aot_allocator_state();
    void* a = aot_malloc(1 * kMiB - 4096);
    void* b = aot_malloc(1 * kMiB - 4096);
    aot_free(a);
    aot_free(b);
    const AotAllocatorState after = aot_allocator_state();
    // All but the 128 KiB top pad goes back: about 2 MiB less 128 KiB, in pages.
    EXPECT_GE(after.returned_pages - before.returned_pages, (2 * kMiB - 128 * 1024) / 4096 - 1) << "call " << call;
    EXPECT_LE(after.retained_bytes, 128 * 1024u) << "call " << call;
  }
}

TEST_F(AotAllocator, TwoStripsOf70KiBFreedTogetherTrimTheHeapOneOfThemDoesNot) {
  // Below the mmap threshold: heap blocks. Two freed together pass the 128 KiB trim threshold,
  // so all but the top pad goes back, in whole pages, on every call.
  for (int call = 0; call < 3; ++call) {
    const size_t returned = aot_allocator_state().returned_pages;
    void* a = aot_malloc(70000);
    void* b = aot_malloc(70000);
    aot_free(b);
    aot_free(a);
    EXPECT_GT(aot_allocator_state().returned_pages, returned) << "call " << call;
    EXPECT_LE(aot_allocator_state().retained_bytes, 128 * 1024u);
  }
  EXPECT_EQ(aot_allocator_state().fresh_maps, 2u) << "the mappings themselves are reused";
  reset_aot_allocator();
  for (int call = 0; call < 3; ++call) aot_free(aot_malloc(70000));
  EXPECT_EQ(aot_allocator_state().fresh_maps, 1u);
  EXPECT_EQ(aot_allocator_state().returned_pages, 0u) << "one block alone stays below the trim threshold";
}

TEST_F(AotAllocator, EachThreadHasItsOwnHeap) {
  // One 70 KiB block per thread, as two tasks of a parallel loop: no heap passes the trim
  // threshold, as no glibc arena would.
  for (int call = 0; call < 3; ++call) {
    void* main_block = aot_malloc(70000);
    std::thread other([] { aot_free(aot_malloc(70000)); });
    other.join();
    aot_free(main_block);
  }
  EXPECT_EQ(aot_allocator_state().returned_pages, 0u);
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
