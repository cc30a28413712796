// The Builder compiles a batch of candidates in parallel (a TBB arena of N threads), each
// from its own freshly built pipeline, into JIT code the Runner can execute. Failures are
// recorded per candidate (rejected, build_error, build_timeout); the batch always returns.
//
//   BuildBatch batch = build_candidates(candidates, {.threads = 2});
//   for (const BuiltCandidate& b : batch.candidates) runner.run(b);
//
// Compile timeouts: LLVM cannot be interrupted safely inside a process, so each compile
// runs on its own helper thread while an arena thread waits for it with a deadline. A
// compile that misses its deadline is recorded as kBuildTimeout and abandoned: the batch
// returns without it, the helper thread finishes in the background and its code is
// discarded. late_builds_in_flight() counts such compiles; the Runner waits for them
// before timing anything (a compile beside a kernel ruins its timing, and forking while
// LLVM holds a lock could deadlock the child).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/candidate.h"
#include "measure/measure_result.h"

namespace ktune::measure {

struct CompiledKernel;  // measure/compiled_kernel.h

struct BuildOptions {
  // Concurrent compiles; 0 means one per core this process may use.
  int threads = 0;
  // Deadline of scheduling plus compiling one candidate, in milliseconds; <= 0 disables it
  // (compiles then run directly on the arena threads). An abandoned candidate's apply
  // function may still run after the batch returns: whatever it refers to must outlive
  // wait_for_late_builds().
  double timeout_ms = 60000;
  // Halide target string to compile for; empty means the host JIT target
  // (HL_JIT_TARGET or the detected host). For a GPU of this machine use jit_target_for().
  std::string target;
  // Candidates start in their order. One whose build has not started by this time is not
  // built: it comes back with `skipped` set, so that a budget ends within one candidate's
  // build.
  std::optional<std::chrono::steady_clock::time_point> start_before;
  // Once it is non-zero (a stop was requested), no candidate starts and the compiles in
  // flight are abandoned as a missed deadline abandons them: all of these come back
  // `skipped`, so that a stop ends a batch within a fraction of a second. Null: none.
  const std::atomic<int>* stop = nullptr;
};

// The JIT target that runs kernels built for a device whose Halide target is
// `device_target` on this machine: the host JIT target plus the device target's GPU
// features (cuda and its cuda_capability_NN). Empty for a CPU target (the host JIT target).
// Throws ktune::UserError for a malformed string.
std::string jit_target_for(const std::string& device_target);

// One candidate after building.
struct BuiltCandidate {
  // The candidate as given.
  Candidate candidate;
  // status kOk when compiled, otherwise kRejected, kBuildError or kBuildTimeout with the
  // message; build_ms is set either way. Timing fields stay unset.
  MeasureResult build;
  // The compiled pipeline; null unless build.status is kOk.
  std::shared_ptr<const CompiledKernel> kernel;
  // Not built because BuildOptions::start_before had passed or a stop was requested
  // (BuildOptions::stop); `build` means nothing then.
  bool skipped = false;
};

// What a batch cost: the throughput figures the benchmark reports.
struct BuildStats {
  int candidates = 0;  // candidates in the batch
  int built = 0;       // compiled successfully
  int rejected = 0;    // kRejected
  int errors = 0;      // kBuildError
  int timeouts = 0;    // kBuildTimeout
  int skipped = 0;     // not started before BuildOptions::start_before (not in `candidates`)
  int threads = 0;     // concurrent compiles used
  double wall_ms = 0;  // wall time of the whole batch, in milliseconds
  double sum_build_ms = 0;  // sum of per-candidate build times (> wall_ms when parallel)
  // Candidates finished per wall-clock minute; 0 for an empty batch.
  double per_minute() const { return wall_ms > 0 ? candidates * 60000.0 / wall_ms : 0; }
};

struct BuildBatch {
  std::vector<BuiltCandidate> candidates;  // same order as the input
  BuildStats stats;
};

// Builds every candidate; never throws for a candidate's failure. Throws ktune::UserError
// for a malformed options.target. The first call in a process also initializes LLVM and
// the JIT runtime with one tiny compile, outside the timed batch.
BuildBatch build_candidates(const std::vector<Candidate>& candidates, const BuildOptions& options);

// Abandoned compiles (see the top of this file) still running in the background.
int late_builds_in_flight();

// Waits until no abandoned compile is running, `timeout_ms` has passed or a stop is
// requested (common/stop_request.h); true if none is left. Call it before exiting a process
// that abandoned compiles.
bool wait_for_late_builds(double timeout_ms);

}  // namespace ktune::measure
