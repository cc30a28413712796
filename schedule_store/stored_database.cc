#include "schedule_store/stored_database.h"

#include <filesystem>
#include <optional>

#include "common/error.h"
#include "common/halide_version.h"
#include "common/version.h"

namespace ktune::schedule_store {

tuning_db::TuningDb open_tuning_db(const std::string& path, sqlite::OpenMode mode, PageCheck check) {
  tuning_db::OpenOptions open;
  open.mode = mode;
  open.versions = {ktune_version(), kHalideVersion};
  tuning_db::TuningDb db = tuning_db::TuningDb::open(path, open);
  if (check == PageCheck::kIfSmall) check_pages_if_small(db);
  return db;
}

targets::StoredDescription stored_description_in(tuning_db::TuningDb& db) {
  return [&db](const std::string& key) -> std::optional<std::string> {
    const std::optional<tuning_db::DeviceRecord> record = db.find_device(key);
    if (!record) return std::nullopt;
    return record->description;
  };
}

targets::Device resolve_device_in(const std::string& name, const std::string& db_path, const std::string& where) {
  if (targets::is_known_device_name(name) || db_path.empty()) return targets::resolve_device(name, nullptr, where);
  tuning_db::TuningDb db = open_tuning_db(db_path, sqlite::OpenMode::kReadOnly);
  return targets::resolve_device(name, stored_description_in(db), db_path + ": " + where);
}

scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key) {
  return scheduler::target_info_from_device(
      targets::resolve_device(device_key, stored_description_in(db), db.path() + ": --device"));
}

void check_pages_if_small(tuning_db::TuningDb& db) {
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(db.path(), ec);
  if (!ec && bytes <= kMaxPageCheckedBytes) db.check_pages();
}

}  // namespace ktune::schedule_store
