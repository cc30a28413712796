#include "kernels/export_compile.h"

#include "subgraphs/built_pipeline.h"
#include "targets/aot_library.h"

namespace ktune::kernels {

CompileStats compile_library(const ExportPlan& plan, const std::string& archive_path, const std::string& work_dir,
                             int threads) {
  std::vector<targets::AotKernel> kernels;
  for (const PlannedKernel& k : plan.kernels) {
    kernels.push_back({k.function, k.applied.built->pipeline, targets::kernel_arguments(k.applied.built->inputs, k.applied.built->scalars)});
  }
  const targets::AotLibraryStats s =
      targets::write_static_library(kernels, plan.halide_target, archive_path, work_dir, threads);
  return {s.wall_ms, s.runtime_ms, s.archive_bytes};
}

std::vector<std::string> runtime_header_paths() { return targets::halide_runtime_headers(); }

}  // namespace ktune::kernels
