// Where a producer can be computed "at".
//   - host_consumer: the loops of its single consumer, or, when that consumer is inlined,
//     of the consumer's consumer (inlining moves the uses there), and so on. The rule on
//     CUDA targets, where a compute_at producer lives in the consumer's kernel.
//   - at_host (CPU): a Func computed at root, at a loop of its last stage that encloses
//     every reader's computation. Readers are the Funcs that read the producer directly or
//     through inlined Funcs; each is the host itself or computed at a loop of the host.
//     This is how image pipelines are written: every stencil stage computed per tile of the
//     output, producers before consumers inside the tile.
// Shared by the Space, which offers these locations, and the validator.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// {host Func index, the host's stage that uses the producer}, or {-1, -1} when the
// producer has no single host (several consumers, or none).
std::pair<int, int> host_consumer(const Analysis& analysis, const Schedule& schedule, int func);

// The Func a producer may be computed at on a CPU, and how far in.
struct AtHost {
  int func = -1;          // the host, computed at root; -1 when the producer has none
  int stage = -1;         // the host's last stage (the only one Halide 14 resolves)
  std::string innermost;  // the innermost loop of that stage a location may be: the outermost
                          // loop a reader is computed at; empty when any loop may be
};
AtHost at_host(const Analysis& analysis, const Schedule& schedule, int func);
// The same for a pipeline input (a pack of it, scheduler/schedule.h InputPack): the host
// of the Funcs that read the input directly or through inlined Funcs.
AtHost input_at_host(const Analysis& analysis, const Schedule& schedule, const std::string& input);

// The loops of `host.stage` of Func `host.func` a producer may be computed at, from
// `host.innermost` (or the innermost loop) outwards, as `kAt` locations; none that is
// vectorized, unrolled or fused into a parallel loop, and none in a stage split with rfactor.
std::vector<ComputeLocation> at_locations(const Analysis& analysis, const Schedule& schedule, int func, int stage,
                                          const std::string& innermost);

}  // namespace ktune::scheduler
