// Reaching into Halide's JIT shared runtime (the code every JIT pipeline of a target
// shares) for its thread pool: shutting it down before a fork, so that children start a
// fresh pool with every worker (a forked child inherits the pool's state but not its
// threads, and would wait on workers that do not exist), and setting the thread count.
#pragma once

#include <Halide.h>

namespace ktune::measure::internal {

// halide_set_num_threads of the JIT runtime.
using SetNumThreadsFn = int (*)(int);

// Calls halide_shutdown_thread_pool of the JIT shared runtime for `target`, if the runtime
// exists. Harmless when the pool never started; the pool restarts lazily when needed.
void shutdown_jit_thread_pool(const Halide::Target& target);

// halide_set_num_threads of the JIT shared runtime for `target`; null if the runtime has
// not been created yet (nothing was compiled for the target).
SetNumThreadsFn find_set_num_threads(const Halide::Target& target);

}  // namespace ktune::measure::internal
