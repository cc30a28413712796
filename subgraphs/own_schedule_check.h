// The correctness gate applied to a Generator's own (hand) schedule: the one schedule known
// to be right. When it fails, the gate or the seeded data is wrong, not the schedule, and
// ktune says so loudly (show --check, tune, bench).
#pragma once

#include <cstdint>
#include <string>

#include "subgraphs/check.h"
#include "subgraphs/generator_loader.h"

namespace ktune::subgraphs {

// Builds `generator` with its own schedule (auto_schedule false), runs it on the inputs of
// `seed` and compares it with the reference. Halide failures are in CheckResult::error.
CheckResult check_own_schedule(const GeneratorSubgraph& generator, uint64_t seed);

// The same in a forked child that may run for `timeout_ms`.
CheckResult check_own_schedule_isolated(const GeneratorSubgraph& generator, uint64_t seed, double timeout_ms);

// The warning for an own schedule that fails the gate: what failed, and that the gate or the
// data is to blame (with the flags that change the data). Empty when `result` passed or the
// own schedule could not be built or run (that is reported as it is).
std::string own_schedule_gate_warning(const GeneratorSubgraph& generator, const CheckResult& result);
// The same warning for an own schedule measured as a wrong result elsewhere (bench), with
// the gate's message `failure`.
std::string own_schedule_gate_warning(const Subgraph& generator, const std::string& failure);

}  // namespace ktune::subgraphs
