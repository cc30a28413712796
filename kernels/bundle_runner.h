// The runner of a measurement bundle (`ktune bundle`): the C++ source of DIR/run, a program
// linked with the bundle's kernels that, on the device's machine, loads each candidate's
// seeded inputs, runs it once, checks the outputs against the references by ktune's rule
// (subgraphs/compare.h), times repeats and prints one JSON object. One source serves both
// kinds of bundle, branching on the plan's device kind: for CUDA each call is followed by a
// device sync, and without a usable CUDA driver or GPU it prints {"error": "no CUDA device:
// ..."} and exits 3 (the source overrides the runtime's weak halide_error, which would
// abort); for a CPU the kernels run on host buffers with `--threads N` threads, else
// HL_NUM_THREADS, else every core, and the JSON says how many ("threads") and whether it ran
// under an emulator ("emulated": qemu-user running an arm64 runner elsewhere, which checks
// correctness but whose times ingest refuses).
#pragma once

#include <string>

#include "kernels/export_plan.h"

namespace ktune::kernels {

// Exit code of the runner when there is no CUDA device.
inline constexpr int kRunnerNoDeviceExit = 3;

// The runner's source; `header` is the include name of the kernels' header. Test data are
// read from test_data_dir(k) under the folder given with --dir (default: the runner's own).
std::string runner_source_text(const ExportPlan& plan, const std::string& header);

}  // namespace ktune::kernels
