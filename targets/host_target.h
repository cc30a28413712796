// The Halide target string of this machine. Kept in its own translation unit because it is
// the only place device detection needs Halide.h.
#pragma once

#include <string>

namespace ktune::targets {

// Halide::get_host_target().to_string(), e.g. "x86-64-linux-avx-avx2-fma-sse41".
std::string host_halide_target();

}  // namespace ktune::targets
