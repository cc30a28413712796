#include "targets/host_target.h"

#include <Halide.h>

namespace ktune::targets {

std::string host_halide_target() { return Halide::get_host_target().to_string(); }

}  // namespace ktune::targets
