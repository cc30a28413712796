// Ahead-of-time emission: already scheduled Halide pipelines compiled for one target into
// ONE static library with exactly one Halide runtime. Every kernel is compiled with the
// no_runtime feature and the runtime once, standalone, so the archive never carries two
// copies of the (weak) runtime symbols.
//
//   std::vector<AotKernel> kernels = {{"ktune_gemm", scheduled_pipeline, kernel_arguments(inputs, {})}};
//   AotLibraryStats s = write_static_library(kernels, "x86-64-linux-avx2-fma", "out/libk.a", "out/obj");
//
// Include this only where Halide.h is needed (the AOT path of `ktune export`).
#pragma once

#include <Halide.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::targets {

// One exported function.
struct AotKernel {
  std::string function_name;                // exported C symbol; must satisfy is_c_identifier
  Halide::Pipeline pipeline;                // the scheduled pipeline
  std::vector<Halide::Argument> arguments;  // inputs in call order; Halide appends one buffer per output
};

// What writing a library cost.
struct AotLibraryStats {
  int kernels = 0;                // functions in the library
  double kernels_cpu_ms = 0;      // sum of the kernels' compile times, ms (> wall time when parallel)
  double runtime_ms = 0;          // compiling the standalone runtime, ms
  double wall_ms = 0;             // whole call, ms
  int64_t archive_bytes = 0;      // size of the written archive
  std::vector<std::string> objects;  // object files inside the archive, kernels first, runtime last
};

// One input-buffer Argument per buffer parameter, then one scalar Argument per scalar
// parameter, in the given orders.
std::vector<Halide::Argument> kernel_arguments(const std::vector<Halide::Internal::Parameter>& inputs,
                                               const std::vector<Halide::Internal::Parameter>& scalars);

// Compiles every kernel (`threads` at a time; <= 0 means 1) for `halide_target` plus one
// standalone runtime into objects under `work_dir` (created if needed), then archives them
// into `archive_path`. Throws ktune::UserError for a malformed target string or a function
// name that is not a C identifier or is used twice, and std::runtime_error naming the
// function when Halide fails to compile a kernel.
AotLibraryStats write_static_library(const std::vector<AotKernel>& kernels, const std::string& halide_target,
                                     const std::string& archive_path, const std::string& work_dir, int threads = 1);

// The Halide runtime headers a caller of the exported functions needs (HalideRuntime.h and
// HalideBuffer.h of the Halide ktune was built with), as absolute paths.
std::vector<std::string> halide_runtime_headers();

}  // namespace ktune::targets
