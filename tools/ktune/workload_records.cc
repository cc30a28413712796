#include "tools/ktune/workload_records.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/device_lookup.h"
#include "targets/host_detect.h"

namespace ktune::cli {

std::string resolve_device_key(const std::string& name) {
  if (name == "host") return targets::device_key(targets::detect_host_device());
  if (targets::find_known_cuda_device(name)) return targets::device_key(targets::device_by_name(name));
  return name;
}

scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key) {
  const std::optional<tuning_db::DeviceRecord> rec = db.find_device(device_key);
  if (!rec) {
    throw UserError(format_user_error(db.path(), "--device", "no device with key " + device_key +
                                                                 "; `ktune db stats` lists the devices"));
  }
  const nlohmann::json description = nlohmann::json::parse(rec->description, nullptr, false);
  if (description.is_discarded()) return scheduler::TargetInfo{};
  return scheduler::target_info_from_device(targets::device_from_json(description, "devices." + device_key));
}

void check_pages_if_small(tuning_db::TuningDb& db) {
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(db.path(), ec);
  if (!ec && bytes <= kMaxPageCheckedBytes) db.check_pages();
}

}  // namespace ktune::cli
