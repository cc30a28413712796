#include "search/db_records.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "common/error.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::search {

tuning_db::WorkloadRecord workload_record(const subgraphs::Subgraph& sg) {
  tuning_db::WorkloadRecord w;
  w.key = sg.key().key;
  w.name = sg.name();
  w.family_key = sg.key().family_key;
  w.shapes = nlohmann::json(sg.key().shapes).dump();
  if (const auto* spec = dynamic_cast<const subgraphs::SpecSubgraph*>(&sg)) {
    w.spec = subgraphs::spec_to_json(spec->spec()).dump();
  } else if (const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(&sg)) {
    // An absolute library path, so the workload can be rebuilt from any directory.
    const std::string library = std::filesystem::absolute(gen->ref().library).lexically_normal().string();
    w.spec = nlohmann::json{{"generator", gen->ref().generator}, {"library", library}, {"params", gen->params()}}.dump();
  }
  w.flops = static_cast<int64_t>(sg.flops());
  w.bytes = static_cast<int64_t>(sg.compulsory_bytes());
  return w;
}

std::unique_ptr<subgraphs::Subgraph> subgraph_from_record(const tuning_db::WorkloadRecord& w) {
  const nlohmann::json j = nlohmann::json::parse(w.spec, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return nullptr;
  try {
    if (j.contains("ops")) {
      return std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(w.spec, "workload " + w.name));
    }
    if (j.contains("generator") && j.contains("library")) {
      std::map<std::string, std::string> params;
      if (j.contains("params")) params = j["params"].get<std::map<std::string, std::string>>();
      return subgraphs::load_generator_subgraph(j["library"].get<std::string>() + ":" + j["generator"].get<std::string>(),
                                                params);
    }
  } catch (const UserError&) {
    return nullptr;
  }
  return nullptr;
}

tuning_db::DeviceRecord device_record(const targets::Device& device) {
  tuning_db::DeviceRecord d;
  d.key = targets::device_key(device);
  d.target = device.halide_target;
  d.description = targets::to_json(device).dump();
  return d;
}

}  // namespace ktune::search
