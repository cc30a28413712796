#include "targets/device_target.h"

#include "common/error.h"

namespace ktune::targets {

std::string target_kind(const Device& device) { return device.is_gpu() ? "cuda" : "host"; }

void check_device_target(const std::string& target, const std::string& device_name, const Device& device) {
  if (target.empty() || target == target_kind(device)) return;
  throw UserError("--target " + target + " but --device " + device_name + " is a " + to_string(device.kind) +
                  " device; drop --target or name a " + (target == "cuda" ? "CUDA GPU (h100, a100, ...)" : "CPU (host)"));
}

}  // namespace ktune::targets
