// Compiles the kernels of an export plan into one static library with one Halide runtime
// (targets/aot_library.h). Kept apart so that only this translation unit of the kernels library
// includes Halide.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/export_plan.h"

namespace ktune::kernels {

struct CompileStats {
  double wall_ms = 0;          // whole compile, ms
  double runtime_ms = 0;       // the standalone runtime alone, ms
  int64_t archive_bytes = 0;   // size of the archive
};

// Writes `archive_path`, compiling `threads` kernels at a time, objects under `work_dir`.
CompileStats compile_library(const ExportPlan& plan, const std::string& archive_path, const std::string& work_dir,
                             int threads);

// HalideRuntime.h and HalideBuffer.h of the Halide the library is compiled with: callers need
// them to build halide_buffer_t, so they are shipped beside the library's header.
std::vector<std::string> runtime_header_paths();

}  // namespace ktune::kernels
