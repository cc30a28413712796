// Resolves a device name given on the command line or in a build (`--device host`) to a
// Device: "host" (this CPU), "cuda" (this machine's first GPU) or a known GPU by name
// ("h100"), for building kernels that run elsewhere.
#pragma once

#include <string>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

// The names device_by_name accepts, in the order help texts list them.
const std::vector<std::string>& known_device_names();

// "host" detects this machine. Throws ktune::UserError listing the accepted names otherwise.
Device device_by_name(const std::string& name);

}  // namespace ktune::targets
