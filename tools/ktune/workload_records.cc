#include "tools/ktune/workload_records.h"

#include <filesystem>
#include <optional>

namespace ktune::cli {

targets::StoredDescription stored_description_in(tuning_db::TuningDb& db) {
  return [&db](const std::string& key) -> std::optional<std::string> {
    const std::optional<tuning_db::DeviceRecord> record = db.find_device(key);
    if (!record) return std::nullopt;
    return record->description;
  };
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

}  // namespace ktune::cli
