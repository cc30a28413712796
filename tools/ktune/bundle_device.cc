#include "tools/ktune/bundle_device.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "targets/device_lookup.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

targets::Device stored_device(const std::string& key, const std::string& db_path) {
  if (!std::filesystem::exists(db_path)) throw UserError(format_user_error(db_path, "--db", "no such database"));
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  open.versions = {KTUNE_VERSION, kHalideVersion};
  tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path, open);
  const std::optional<tuning_db::DeviceRecord> record = db.find_device(key);
  if (!record) {
    throw UserError(format_user_error(db_path, "--device", "no device with key \"" + key +
                                                               "\"; `ktune db stats --db " + db_path +
                                                               "` lists the stored devices"));
  }
  const std::string where = db_path + ": devices." + key;
  const nlohmann::json description = nlohmann::json::parse(record->description, nullptr, false);
  if (description.is_discarded()) throw UserError(format_user_error(where, "description", "not valid JSON"));
  targets::Device device = targets::device_from_json(description, where);
  if (targets::device_key(device) != key) {
    throw UserError(format_user_error(where, "description", "describes the device " + targets::device_key(device) +
                                                                ", not " + key + " (stored by another ktune?)"));
  }
  return device;
}

}  // namespace

BundleDevice resolve_bundle_device(const std::string& name, const std::string& db_path) {
  const std::vector<std::string>& known = targets::known_device_names();
  BundleDevice out;
  out.name = name;
  if (std::find(known.begin(), known.end(), name) != known.end()) {
    out.device = targets::device_by_name(name);
  } else if (!db_path.empty()) {
    out.device = stored_device(name, db_path);
  } else {
    std::string names;
    for (const std::string& n : known) names += (names.empty() ? "" : ", ") + n;
    throw UserError("bundle: --device \"" + name + "\": unknown device; accepted names: " + names +
                    ", or the key of a device stored in a tuning database given with --db F");
  }
  if (out.device.kind != "cpu" && out.device.kind != "cuda") {
    throw UserError("bundle: --device " + name + " is a " + out.device.kind +
                    " device; bundles are built for CPUs and CUDA GPUs");
  }
  out.key = targets::device_key(out.device);
  return out;
}

}  // namespace ktune::cli
