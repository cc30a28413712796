// Where a stage stands on a GPU: the positions of its block and thread loops in its loop
// nest, and which of a host stage's loops are on the host, in a block, or in a thread.
// Validators, the sampler and mutators read GPU schedules through this one view.
#pragma once

#include <optional>
#include <string>

#include "scheduler/loop_nest.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

struct GpuLevels {
  int innermost_thread = -1;  // nest position of threads[0]; -1 without thread loops
  int outermost_thread = -1;  // nest position of threads.back()
  int innermost_block = -1;   // nest position of blocks[0]; -1 without block loops
  int outermost_block = -1;   // nest position of blocks.back()
  int64_t threads = 1;        // threads per block: product of the thread loops' extents
};

// The levels of `stage` in `nest`, or nullopt with `error` set when a mapped loop is
// missing or listed twice, or the block (thread) loops are not adjacent and in order.
std::optional<GpuLevels> gpu_levels(const LoopNest& nest, const GpuMapping& gpu, std::string* error);

}  // namespace ktune::scheduler
