// The Halide target strings of this machine. Kept in its own translation unit because it
// is the only place device detection needs Halide.h.
#pragma once

#include <string>

namespace ktune::targets {

// Halide::get_host_target() without the features this CPU lacks (supported_halide_target
// in host_detect.h), e.g. "x86-64-linux-avx-avx2-fma-sse41".
std::string host_halide_target();

// The target JIT-compiled code runs with here: HL_JIT_TARGET when it is set (Halide's own
// rule), else host_halide_target().
std::string jit_halide_target();

}  // namespace ktune::targets
