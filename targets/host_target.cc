#include "targets/host_target.h"

#include <Halide.h>

#include <cstdlib>

#include "targets/cpu_codegen.h"
#include "targets/host_detect.h"

namespace ktune::targets {

std::string host_halide_target() {
  // Asked for on every candidate's build: read the CPU once.
  static const std::string target = supported_halide_target(Halide::get_host_target().to_string(), host_cpu_flags());
  return target;
}

std::string jit_halide_target() {
  const char* env = std::getenv("HL_JIT_TARGET");
  if (env && *env) return Halide::get_jit_target_from_environment().to_string();
  return host_halide_target();
}

}  // namespace ktune::targets
