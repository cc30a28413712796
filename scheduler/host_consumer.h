// Where a producer can be computed "at": the loops of its single consumer, or, when that
// consumer is inlined, of the consumer's consumer (inlining moves the uses there), and so
// on. Shared by the Space, which offers these locations, and the validator.
#pragma once

#include <utility>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// {host Func index, the host's stage that uses the producer}, or {-1, -1} when the
// producer has no single host (several consumers, or none).
std::pair<int, int> host_consumer(const Analysis& analysis, const Schedule& schedule, int func);

}  // namespace ktune::scheduler
