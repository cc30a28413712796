#include "targets/device_lookup.h"

#include "common/error.h"
#include "targets/host_detect.h"

namespace ktune::targets {

const std::vector<std::string>& known_device_names() {
  static const std::vector<std::string> names = {"host"};
  return names;
}

Device device_by_name(const std::string& name) {
  if (name == "host") return detect_host_device();
  std::string accepted;
  for (const std::string& known : known_device_names()) {
    accepted += (accepted.empty() ? "" : ", ") + known;
  }
  throw UserError(format_user_error("", "device",
                                    "unknown device \"" + name + "\"; accepted names: " + accepted +
                                        " (GPU devices are not supported yet)"));
}

}  // namespace ktune::targets
