// Halide 14's own autoschedulers as bench methods (the kAutoscheduler rows of
// bench_methods.cc: Adams2019, Mullapudi2016 and Li2018), loaded from the plugins Debian's
// libhalide14-0-dev ships, run on a fresh copy of the same algorithm with machine
// parameters taken from the detected device. An autoscheduler can throw, abort or crash
// the process, so each one first schedules and compiles in a forked child
// (probe_autoscheduler); only one that succeeded there is applied again in the bench process
// and built like any other candidate.
#pragma once

#include <cstdint>
#include <string>

#include "measure/candidate.h"
#include "subgraphs/subgraph.h"
#include "targets/device.h"

namespace ktune::bench {

// Halide's MachineParams as plain data.
struct AutoschedulerParams {
  int parallelism = 1;      // cores the schedule may use
  int64_t llc_bytes = 0;    // last-level cache size in bytes
  double balance = 40;      // cost of a load from memory relative to an arithmetic op
  // "2,110100480,40": the string form Halide's generators accept as machine_params.
  std::string to_string() const;
};

// Parallelism = `threads`, LLC = the device's last-level cache (16 MiB when unknown),
// balance 40 (Halide's default, which the three autoschedulers were tuned with).
AutoschedulerParams machine_params_for(const targets::Device& device, int threads);

// Where the Halide ktune was built against installs its autoscheduler plugins (from Halide's
// CMake package; /usr/lib/x86_64-linux-gnu/halide14 on Debian 12 for x86-64).
const char* default_plugin_dir();

// Loads the plugin of `name` (libautoschedule_<lowercase name>.so in `plugin_dir`) once per
// process and path; returns an empty string on success, otherwise why it failed.
std::string load_autoscheduler(const std::string& name, const std::string& plugin_dir);

// Outcome of scheduling and compiling in a child.
struct ProbeResult {
  std::string status;   // "ok", "failed", "crash" or "timeout" (bench result statuses)
  std::string message;  // Halide's error, the signal, or the limit; empty when ok
  double wall_ms = 0;   // time the child took
};

// Builds a fresh pipeline of `subgraph`, runs autoscheduler `name` on it and compiles it
// for `halide_target` (empty: the host JIT target), in a forked child given `timeout_ms`.
// The autoscheduler's own progress output (Adams2019 prints it) is discarded.
ProbeResult probe_autoscheduler(const subgraphs::Subgraph& subgraph, const std::string& name,
                                const AutoschedulerParams& params, const std::string& halide_target,
                                double timeout_ms);

// A candidate whose apply runs autoscheduler `name` on the fresh pipeline it is given.
measure::Candidate autoscheduler_candidate(const subgraphs::Subgraph& subgraph, const std::string& name,
                                           const AutoschedulerParams& params, const std::string& halide_target);

// Redirects this process's stderr to /dev/null while it lives (Adams2019 prints its search
// progress unconditionally); restores it on destruction.
class QuietStderr {
 public:
  QuietStderr();
  ~QuietStderr();
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;  // duplicate of the original stderr
};

}  // namespace ktune::bench
