#include "tools/ktune/workload_records.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "targets/host_detect.h"

namespace ktune::cli {

tuning_db::WorkloadRecord workload_record(const subgraphs::SpecSubgraph& subgraph, const std::string& spec_path) {
  std::ifstream in(spec_path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json spec = nlohmann::json::parse(text.str(), nullptr, false);
  if (spec.is_discarded() || !spec.is_object()) spec = nlohmann::json::object();
  spec["name"] = subgraph.name();
  tuning_db::WorkloadRecord w;
  w.key = subgraph.key().key;
  w.name = subgraph.name();
  w.family_key = subgraph.key().family_key;
  w.shapes = nlohmann::json(subgraph.key().shapes).dump();
  w.spec = spec.dump();
  w.flops = static_cast<int64_t>(subgraph.flops());
  w.bytes = static_cast<int64_t>(subgraph.compulsory_bytes());
  return w;
}

std::unique_ptr<subgraphs::SpecSubgraph> subgraph_from_record(const tuning_db::WorkloadRecord& workload) {
  const nlohmann::json spec = nlohmann::json::parse(workload.spec, nullptr, false);
  if (spec.is_discarded() || !spec.is_object() || !spec.contains("ops")) return nullptr;
  try {
    return std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(workload.spec, "workload " + workload.name));
  } catch (const UserError&) {
    return nullptr;
  }
}

tuning_db::DeviceRecord device_record(const targets::Device& device) {
  tuning_db::DeviceRecord d;
  d.key = targets::device_key(device);
  d.target = device.halide_target;
  d.description = targets::to_json(device).dump();
  return d;
}

std::string resolve_device_key(const std::string& name) {
  return name == "host" ? targets::device_key(targets::detect_host_device()) : name;
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

}  // namespace ktune::cli
