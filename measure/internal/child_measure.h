// The part of a measurement that runs inside the forked child: bind the seeded inputs,
// run once and compare with the reference, then follow the timing protocol. Only the
// child ever executes a candidate's pipeline.
#pragma once

#include "measure/compiled_kernel.h"
#include "measure/internal/jit_runtime.h"
#include "measure/measure_result.h"
#include "measure/timing_protocol.h"
#include "measure/workload_data.h"

namespace ktune::measure::internal {

// Sets the kernel thread count to `threads` (HL_NUM_THREADS and halide_set_num_threads
// when `set_num_threads` is not null), then verifies and times `kernel` on `workload`,
// its allocations served as in a user's AOT build when `aot_allocation` (aot_allocator.h).
// Returns kOk with timings, kWrongResult with max_error, or kRuntimeError with Halide's
// message. A crash or a hang never returns: the parent sees the signal or the timeout.
MeasureResult measure_in_child(const CompiledKernel& kernel, const WorkloadData& workload,
                               const subgraphs::Subgraph& subgraph, const TimingProtocol& protocol,
                               int threads, SetNumThreadsFn set_num_threads, bool aot_allocation);

}  // namespace ktune::measure::internal
