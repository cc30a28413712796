#include "targets/tuning_device.h"

#include <algorithm>
#include <cctype>

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/device_lookup.h"
#include "targets/device_target.h"
#include "targets/host_detect.h"
#include "targets/known_devices.h"

namespace ktune::targets {
namespace {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string bundle_hint(const std::string& name) {
  return "to tune for it on another machine, build candidates here with `ktune bundle SPEC... --device " + name +
         " --out DIR`, run `DIR/run --json > results.json` there and record them with `ktune ingest results.json "
         "--bundle DIR --db F`";
}

// The known card `name`, provided this machine has one like it.
Device local_known_card(const std::string& name, const Device& card) {
  const CudaDetection detected = detect_cuda_devices();
  if (detected.devices.empty()) {
    throw UserError(format_user_error("", "--device",
                                      "\"" + name + "\" is a GPU and this machine has none (" + detected.problem +
                                          "); " + bundle_hint(name)));
  }
  std::string here;
  for (const Device& d : detected.devices) {
    if (lowercase(d.gpu.name).find(name) != std::string::npos) return card;
    here += (here.empty() ? "" : ", ") + d.gpu.name;
  }
  throw UserError(format_user_error("", "--device",
                                    "\"" + name + "\" is not a GPU of this machine (it has " + here +
                                        "; --device cuda tunes for the first of them); " + bundle_hint(name)));
}

// The known CPU `name`, provided this machine is one (host detection identifies it by its
// core and core count, targets/known_devices.h).
Device local_known_cpu(const std::string& name, const Device& cpu) {
  const Device here = detect_host_device();
  if (device_key(here) == device_key(cpu)) return cpu;
  throw UserError(format_user_error("", "--device",
                                    "\"" + name + "\" is a " + cpu.cpu_model + " CPU and this machine is not one (it is " +
                                        here.cpu_model + ", " + std::to_string(here.cores) + " cores); " +
                                        bundle_hint(name)));
}

}  // namespace

Device tuning_device(const std::string& device_name, const std::string& target) {
  const std::string name = !device_name.empty() ? lowercase(device_name) : target == "cuda" ? "cuda" : "host";
  const Device* known = find_known_device(name);
  const Device device = !known ? device_by_name(name)
                        : known->is_gpu() ? local_known_card(name, *known)
                                          : local_known_cpu(name, *known);
  check_device_target(target, name, device);
  return device;
}

}  // namespace ktune::targets
