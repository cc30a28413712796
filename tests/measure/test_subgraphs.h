// Tiny hand-written subgraphs for the measurement tests: a correct kernel, one whose
// reference disagrees with it (wrong_result), an out-of-bounds gather (crash or
// runtime_error), a kernel that runs for minutes (run_timeout), a reference that throws,
// and a parallel kernel that records which threads ran it. All are small enough that the
// whole binary runs in seconds.
#pragma once

#include <memory>
#include <set>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/subgraph.h"

namespace ktune::measure::testing {

// out(x) = in(x) * 2 over 256 floats. With `wrong_reference` its reference returns in * 3.
std::unique_ptr<subgraphs::Subgraph> make_scale(bool wrong_reference = false);

// out(x) = data(x + 2000000000) over 16 floats: out of bounds. With Halide's asserts on it
// is a runtime error; compiled with no_asserts-no_bounds_query it reads 8 GB past the
// buffer and faults.
std::unique_ptr<subgraphs::Subgraph> make_gather();

// out(x) = sum of sin(x + r) for r in [0, 2^30) over 4 outputs: minutes when serial.
// Its update stage has one reduction variable, so parallel(rvar) is an illegal schedule.
std::unique_ptr<subgraphs::Subgraph> make_spin();

// Like make_scale, but its reference throws std::runtime_error("reference exploded").
std::unique_ptr<subgraphs::Subgraph> make_throwing_reference();

// out(x, y) = probe(y) over 2 x 128: the extern probe spins about 0.3 ms and records the
// kernel thread that called it in memory shared with forked children. Schedule it with
// parallel_rows() to spread rows across the thread pool.
std::unique_ptr<subgraphs::Subgraph> make_thread_probe();
void parallel_rows(const subgraphs::BuiltPipeline& built);

// Schedules make_scale's output as one GPU kernel: 4 blocks of 64 threads.
void gpu_tiles(const subgraphs::BuiltPipeline& built);

// Clears the shared record of probe threads (call before measuring).
void reset_probe_threads();
// Distinct thread ids that ran the probe since the last reset, in any process.
std::set<int> probe_threads();

}  // namespace ktune::measure::testing
