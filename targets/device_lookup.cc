#include "targets/device_lookup.h"

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/host_detect.h"

namespace ktune::targets {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

const std::vector<std::string>& known_device_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"host", "cuda"};
    for (const std::string& gpu : known_cuda_device_names()) out.push_back(gpu);
    return out;
  }();
  return names;
}

Device device_by_name(const std::string& name) {
  if (name == "host") return detect_host_device();
  if (name == "cuda") {
    CudaDetection detected = detect_cuda_devices();
    if (detected.devices.empty()) {
      throw UserError(format_user_error(
          "", "device",
          "\"cuda\" means this machine's first GPU, but there is none: " + detected.problem +
              "; name a known card (" + joined(known_cuda_device_names()) +
              ") to build for a GPU elsewhere"));
    }
    return detected.devices.front();
  }
  if (const Device* gpu = find_known_cuda_device(name)) return *gpu;
  throw UserError(format_user_error("", "device",
                                    "unknown device \"" + name +
                                        "\"; accepted names: " + joined(known_device_names())));
}

}  // namespace ktune::targets
