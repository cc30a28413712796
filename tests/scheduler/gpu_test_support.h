// Shared by the GPU scheduler tests: the CUDA targets of the known cards, a shared-memory
// schedule of the 3x3 blur, and the PTX Halide generates for a scheduled pipeline (no GPU
// is needed: LLVM's NVPTX backend runs at lowering).
#pragma once

#include <sstream>
#include <string>

#include "scheduler/gpu_stage_template.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler::testing {

// The blur3x3 heuristic with blur_x staged in shared memory at blur_y's block level.
inline Schedule blur_shared_schedule(const Space& space) {
  Schedule s = space.heuristic();
  const Analysis& a = space.analysis();
  FuncSchedule& bx = *s.find("blur_x");
  const StageSchedule by = s.find("blur_y")->stage_or_empty(0);
  bx.compute = ComputeLocation{ComputeLocation::Kind::kAt, "blur_y", 0, by.gpu.blocks.at(0)};
  bx.stages = {make_gpu_stage(a.find("blur_x")->stages[0], GpuTilingChoice{32, 8, 0}, false)};
  bx.stages[0].gpu.memory = "shared";
  return s;
}

// The device code (PTX text) of the pipeline compiled for `halide_target`, or "error: ...".
inline std::string device_code(const ApplyResult& applied, const std::string& halide_target) {
  if (!applied.ok) return "error: " + applied.error;
  try {
    Halide::Pipeline p = applied.built->pipeline;
    const Halide::Module m = p.compile_to_module(p.infer_arguments(), "ktune_gpu_kernel", Halide::Target(halide_target));
    std::string code;
    for (const Halide::Buffer<>& b : m.buffers()) {
      if (b.name().find("gpu_source_kernels") != std::string::npos) {
        code.append(static_cast<const char*>(b.data()), b.size_in_bytes());
      }
    }
    return code;
  } catch (const Halide::Error& e) {
    return std::string("error: ") + e.what();
  }
}

// The host side of the pipeline compiled for `halide_target` (the lowered statement, with
// one halide_cuda_run call per kernel launch: kernel name, blocks x, y, z, threads x, y,
// z), or "error: ...".
inline std::string host_code(const ApplyResult& applied, const std::string& halide_target) {
  if (!applied.ok) return "error: " + applied.error;
  try {
    Halide::Pipeline p = applied.built->pipeline;
    const Halide::Module m = p.compile_to_module(p.infer_arguments(), "ktune_gpu_kernel", Halide::Target(halide_target));
    std::ostringstream os;
    for (const Halide::Internal::LoweredFunc& f : m.functions()) os << f.body << "\n";
    return os.str();
  } catch (const Halide::Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace ktune::scheduler::testing
