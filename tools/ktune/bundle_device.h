// The device a measurement bundle (`ktune bundle`) is built for: a name
// targets::device_by_name accepts ("host" for this CPU, "h100" for a known card) or the key
// of a device stored in a tuning database (--db), such as a CPU tuned on before, whose
// description then comes from the database:
//   const BundleDevice d = resolve_bundle_device("host", "");
// (--target is checked against it by tools/ktune/device_target.h.)
#pragma once

#include <string>

#include "targets/device.h"

namespace ktune::cli {

struct BundleDevice {
  std::string name;        // as given with --device: "host", "h100" or a stored key
  targets::Device device;  // its description
  std::string key;         // targets::device_key(device)
};

// Resolves --device: a known name first, else a key stored in `db_path` (empty: no
// database). Throws UserError for an unknown name, a key the database lacks, a stored
// description that does not parse or does not hash to its key.
BundleDevice resolve_bundle_device(const std::string& name, const std::string& db_path);

}  // namespace ktune::cli
