// Devices known by name on every machine, so kernels can be built and bundled for a device
// that is elsewhere (`--device h100`): one table, one row per device, CUDA GPUs now (Arm
// CPUs next). `host` and `cuda` (this machine's CPU and first GPU) are detected, not listed
// here; targets/device_lookup.h resolves every name.
#pragma once

#include <string>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

struct KnownDevice {
  std::string name;  // lowercase, as typed after --device: "h100"
  Device device;     // its full description; its key is the same on every build machine
};

// Every known device, in the order help texts list them.
const std::vector<KnownDevice>& known_devices();

// The known device `name`, or nullptr.
const Device* find_known_device(const std::string& name);

// Names of the known devices of `kind`, in table order.
std::vector<std::string> known_device_names_of(DeviceKind kind);

}  // namespace ktune::targets
