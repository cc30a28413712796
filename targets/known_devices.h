// Devices known by name on every machine, so kernels can be built and bundled for a device
// that is elsewhere (`--device h100`, `--device cortex-a76`): one table, one row per device,
// CUDA GPUs and Arm CPUs. `host` and `cuda` (this machine's CPU and first GPU) are detected,
// not listed here; targets/device_lookup.h resolves every name. An Arm machine running ktune
// recognises itself as its row (identify_known_cpu), so its key is the one bundles built
// elsewhere for that name carry.
#pragma once

#include <string>
#include <vector>

#include "targets/device.h"
#include "targets/host_detect.h"

namespace ktune::targets {

struct KnownDevice {
  std::string name;      // lowercase, as typed after --device: "h100"
  Device device;         // its full description; its key is the same on every build machine
  std::string arm_part;  // an Arm CPU's "CPU part" in /proc/cpuinfo ("0xd0b"); empty otherwise
};

// Every known device, in the order help texts list them.
const std::vector<KnownDevice>& known_devices();

// The known device `name`, or nullptr.
const Device* find_known_device(const std::string& name);

// Names of the known devices of `kind`, in table order.
std::vector<std::string> known_device_names_of(DeviceKind kind);

// `detected` (this machine, as host detection read it) as its known row when it is one: an
// Arm core (implementer 0x41) whose part is a row's, with that row's number of cores, is
// that row, so its key equals the name's. The same core with another number of cores keeps
// its detected cores and caches but takes the row's model name and Halide target (whose
// features the part implies). Anything else is returned unchanged.
Device identify_known_cpu(const CpuInfo& cpuinfo, const Device& detected);

}  // namespace ktune::targets
