#include "targets/device_lookup.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/host_detect.h"
#include "targets/known_devices.h"

namespace ktune::targets {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The device stored under `key`, checked against its key.
Device stored_device(const std::string& key, const std::string& description, const std::string& where) {
  const std::string field = where + " " + key;
  const nlohmann::json json = nlohmann::json::parse(description, nullptr, false);
  if (json.is_discarded()) throw UserError(format_user_error("", field, "the stored description is not valid JSON"));
  const Device device = device_from_json(json, field);
  if (device_key(device) != key) {
    throw UserError(format_user_error("", field, "the stored description is of the device " + device_key(device) +
                                                     ", not " + key + " (stored by another ktune?)"));
  }
  return device;
}

}  // namespace

const std::vector<std::string>& known_device_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"host", "cuda"};
    for (const KnownDevice& known : known_devices()) out.push_back(known.name);
    return out;
  }();
  return names;
}

bool is_known_device_name(const std::string& name) {
  const std::vector<std::string>& known = known_device_names();
  return std::find(known.begin(), known.end(), name) != known.end();
}

Device device_by_name(const std::string& name) {
  if (name == "host") return detect_host_device();
  if (name == "cuda") {
    CudaDetection detected = detect_cuda_devices();
    if (detected.devices.empty()) {
      throw UserError(format_user_error(
          "", "device",
          "\"cuda\" means this machine's first GPU, but there is none: " + detected.problem +
              "; name a known card (" + joined(known_device_names_of(DeviceKind::kCuda)) +
              ") to build for a GPU elsewhere"));
    }
    return detected.devices.front();
  }
  if (const Device* known = find_known_device(name)) return *known;
  throw UserError(format_user_error("", "device",
                                    "unknown device \"" + name +
                                        "\"; accepted names: " + joined(known_device_names())));
}

Device resolve_device(const std::string& name, const StoredDescription& stored, const std::string& where) {
  if (is_known_device_name(name)) return device_by_name(name);
  const std::optional<std::string> description = stored ? stored(name) : std::nullopt;
  if (!description) {
    const std::string what = stored ? "no device with key \"" + name + "\" in the tuning database (`ktune db stats` lists them)"
                                    : "unknown device \"" + name + "\" (without a tuning database, only names)";
    throw UserError(format_user_error("", where, what + "; accepted names: " + joined(known_device_names())));
  }
  return stored_device(name, *description, where);
}

std::string resolve_device_key(const std::string& name) {
  if (name == "host" || find_known_device(name)) return device_key(device_by_name(name));
  return name;
}

}  // namespace ktune::targets
