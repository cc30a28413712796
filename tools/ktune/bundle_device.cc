#include "tools/ktune/bundle_device.h"

#include <filesystem>
#include <optional>

#include "common/error.h"
#include "targets/device_lookup.h"
#include "tools/ktune/commands.h"
#include "tools/ktune/workload_records.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {

BundleDevice resolve_bundle_device(const std::string& name, const std::string& db_path) {
  BundleDevice out;
  out.name = name;
  if (targets::is_known_device_name(name) || db_path.empty()) {
    out.device = targets::resolve_device(name, nullptr, "bundle: --device");
  } else {
    if (!std::filesystem::exists(db_path)) throw UserError(format_user_error(db_path, "--db", "no such database"));
    tuning_db::OpenOptions open;
    open.mode = sqlite::OpenMode::kReadOnly;
    open.versions = {KTUNE_VERSION, kHalideVersion};
    tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path, open);
    out.device = targets::resolve_device(name, stored_description_in(db), db_path + ": --device");
  }
  out.key = targets::device_key(out.device);
  return out;
}

}  // namespace ktune::cli
