// The one resolver of device names, wherever a user names a device (`--device`, the
// plugin's KTUNE_DEVICE): "host" (this CPU), "cuda" (this machine's first GPU), a known
// device by name ("h100": one row of targets/known_devices.h), or the key of a device a
// tuning database describes. The database stays out of this library: callers hand in a
// function that returns the description stored under a key.
//
//   const Device d = resolve_device(opt.device, stored_description_in(db), "--device");
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

// The description (to_json text) stored under a device key, or nullopt when none is.
using StoredDescription = std::function<std::optional<std::string>(const std::string& key)>;

// The names device_by_name accepts, in the order help texts list them.
const std::vector<std::string>& known_device_names();

// True for "host", "cuda" and the known devices' names.
bool is_known_device_name(const std::string& name);

// "host" detects this machine, "cuda" its first GPU, a known name is that device. Throws
// ktune::UserError listing the accepted names otherwise.
Device device_by_name(const std::string& name);

// device_by_name for the known names, else the device `stored` describes under the key
// `name`, checked to hash to that key. Throws ktune::UserError naming `where` (the flag or
// variable) for a key nothing describes, a description that does not parse, or one that
// describes another device. `stored` may be empty (no database): then only names resolve.
Device resolve_device(const std::string& name, const StoredDescription& stored, const std::string& where);

// The key `name` means without reading any description: that of "host" or a known GPU's
// name, else `name` itself (taken as a key).
std::string resolve_device_key(const std::string& name);

}  // namespace ktune::targets
