// --target of `ktune tune` and `ktune bundle`: "cuda" or "host", an optional check that the
// device named with --device is of that kind.
//   check_device_target("cuda", "host", host);  // UserError: "--target cuda but --device host is a cpu device; ..."
#pragma once

#include <string>

#include "targets/device.h"

namespace ktune::targets {

// What --target calls the device's kind: "cuda" for a CUDA GPU, "host" for a CPU.
std::string target_kind(const Device& device);

// `target`, when not empty, must be target_kind(device); throws UserError naming --target
// and --device (as given: `device_name`) otherwise.
void check_device_target(const std::string& target, const std::string& device_name, const Device& device);

}  // namespace ktune::targets
