// The allocation regime a kernel meets in a user's ahead-of-time build, reproduced for the
// measuring child. An AOT library calls the C library's malloc from a small process: glibc
// maps every block of at least its mmap threshold (128 KiB, raised to the size of a freed
// mapped block up to 32 MiB) and unmaps it at free; and when a block of 64 KiB or more is
// freed while its trim threshold (128 KiB, then twice the mmap threshold) or more lies free
// at the top of the thread's heap (each thread has an arena of its own), it returns that
// memory but its top pad (128 KiB) to the system, in pages that fault in again when used. A
// pipeline whose intermediates are large, or that allocates two 64 KiB strips per task, thus
// maps and faults its buffers in on every call. The measuring child is forked from ktune,
// whose large, fragmented heap keeps every freed block: there the same pipeline looked two
// to four times as fast as it runs for its user. AotAllocator models glibc's policy for the
// blocks Halide allocates, so that candidates are timed as they run in the user's build.
#pragma once

#include <cstddef>

namespace Halide {
class Pipeline;
}

namespace ktune::measure::internal {

// Blocks from 64 KiB (glibc's FASTBIN_CONSOLIDATION_THRESHOLD: freeing one may trim the
// heap) follow the model; smaller ones come from malloc, whose reuse of small chunks is the
// same in every process.
inline constexpr size_t kMinModelledBytes = 64 * 1024;

// Gives `pipeline`'s JIT calls the modelled allocator (jit_handlers: custom_malloc and
// custom_free). The model's state (threshold, retained memory) is process-wide, as glibc's.
void use_aot_allocation(Halide::Pipeline& pipeline);

// The allocator itself, for tests: 128-byte aligned blocks (as Halide's own allocator) with
// 8 readable bytes on either side, as Halide requires.
void* aot_malloc(size_t size);
void aot_free(void* block);

// The model's state, for tests.
struct AotAllocatorState {
  size_t mmap_threshold = 0;
  size_t retained_bytes = 0;  // free heap bytes still faulted in, over every thread's heap
  size_t fresh_maps = 0;
  size_t returned_pages = 0;  // free heap pages given back (each faults in again when used)
};
AotAllocatorState aot_allocator_state();
// Back to a new process's state (tests).
void reset_aot_allocator();

}  // namespace ktune::measure::internal
