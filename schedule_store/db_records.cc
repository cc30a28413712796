#include "schedule_store/db_records.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "common/error.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::schedule_store {

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
    nlohmann::json spec = {{"generator", gen->ref().generator}, {"library", library}, {"params", gen->params()}};
    if (!gen->scalar_values().empty()) spec["inputs"] = gen->scalar_values();
    w.spec = spec.dump();
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
      std::map<std::string, std::string> params, inputs;
      if (j.contains("params")) params = j["params"].get<std::map<std::string, std::string>>();
      if (j.contains("inputs")) inputs = j["inputs"].get<std::map<std::string, std::string>>();
      return subgraphs::load_generator_subgraph(j["library"].get<std::string>() + ":" + j["generator"].get<std::string>(),
                                                params, inputs);
    }
  } catch (const std::exception&) {  // a UserError, or a malformed stored spec
    return nullptr;
  }
  return nullptr;
}

tuning_db::MeasurementRecord measurement_record(const measure::MeasureResult& r, int64_t schedule_id,
                                               int64_t device_id, int64_t run_id) {
  tuning_db::MeasurementRecord m;
  m.schedule_id = schedule_id;
  m.device_id = device_id;
  if (run_id >= 0) m.run_id = run_id;
  // The two status enums share their names (measure_result.h, records.h).
  m.status = tuning_db::parse_measure_status(measure::to_string(r.status)).value_or(tuning_db::MeasureStatus::kBuildError);
  if (r.ok()) {
    m.median_ns = r.median_ns;
    m.min_ns = r.min_ns;
    m.spread_ns = std::max(0.0, r.spread_ns);
  }
  m.repeats = std::max<int64_t>(0, r.repeats);
  m.threads = std::max(0, r.threads);
  if (r.build_ms >= 0) m.build_ms = r.build_ms;
  m.error = r.message;
  return m;
}

tuning_db::DeviceRecord device_record(const targets::Device& device) {
  tuning_db::DeviceRecord d;
  d.key = targets::device_key(device);
  d.target = device.halide_target;
  d.description = targets::to_json(device).dump();
  return d;
}

}  // namespace ktune::schedule_store
