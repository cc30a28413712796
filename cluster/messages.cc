#include "cluster/messages.h"

#include <nlohmann/json.hpp>

namespace ktune::cluster {
namespace {

using nlohmann::json;

// The parsed object, or nullopt when `text` is not a JSON object.
std::optional<json> object_of(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// Reads every field through `read`; a missing or mistyped field makes the message nullopt.
template <typename T, typename Read>
std::optional<T> decode_with(const std::string& text, Read read) {
  const auto j = object_of(text);
  if (!j) return std::nullopt;
  try {
    T m;
    read(*j, m);
    return m;
  } catch (const std::exception&) {  // json::exception, or targets::device_from_json's UserError
    return std::nullopt;
  }
}

json item_json(const BatchItem& i) {
  return {{"id", i.id}, {"hash", i.schedule_hash}, {"schedule", i.schedule_json}, {"label", i.label}};
}

BatchItem item_of(const json& i) {
  return {i.at("id").get<int>(), i.at("hash").get<std::string>(), i.at("schedule").get<std::string>(),
          i.at("label").get<std::string>()};
}

}  // namespace

double unix_ms(std::chrono::steady_clock::time_point t) {
  const auto from_now = t - std::chrono::steady_clock::now();
  const auto wall = std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(from_now);
  return std::chrono::duration<double, std::milli>(wall.time_since_epoch()).count();
}

std::chrono::steady_clock::time_point steady_time(double unix_ms) {
  const std::chrono::system_clock::time_point wall(std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::duration<double, std::milli>(unix_ms)));
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(wall - std::chrono::system_clock::now());
}

std::string encode(const Hello& m) {
  return json{{"rank", m.rank}, {"host", m.host}, {"device", targets::to_json(m.device)}}.dump();
}

std::string encode(const WorkloadMessage& m) { return json{{"key", m.key}, {"name", m.name}, {"spec", m.spec}}.dump(); }

std::string encode(const Batch& m) {
  json items = json::array();
  for (const BatchItem& i : m.items) items.push_back(item_json(i));
  json j{{"batch", m.batch},
         {"workload", m.workload_key},
         {"incumbent_ns", m.incumbent_ns},
         {"start_before_unix_ms", m.start_before_unix_ms},
         {"items", items}};
  if (m.incumbent) j["incumbent"] = item_json(*m.incumbent);
  return j.dump();
}

std::string encode(const ResultMessage& m) {
  return json{{"batch", m.batch}, {"id", m.id}, {"result", measure::to_json(m.result)}}.dump();
}

std::string encode(const BatchDone& m) { return json{{"batch", m.batch}}.dump(); }

std::string encode(const Stop& m) { return json{{"reason", m.reason}}.dump(); }

std::optional<Hello> decode_hello(const std::string& text) {
  return decode_with<Hello>(text, [](const json& j, Hello& m) {
    m.rank = j.at("rank").get<int>();
    m.host = j.at("host").get<std::string>();
    m.device = targets::device_from_json(j.at("device"), "hello");
  });
}

std::optional<WorkloadMessage> decode_workload(const std::string& text) {
  return decode_with<WorkloadMessage>(text, [](const json& j, WorkloadMessage& m) {
    m.key = j.at("key").get<std::string>();
    m.name = j.at("name").get<std::string>();
    m.spec = j.at("spec").get<std::string>();
  });
}

std::optional<Batch> decode_batch(const std::string& text) {
  return decode_with<Batch>(text, [](const json& j, Batch& m) {
    m.batch = j.at("batch").get<int>();
    m.workload_key = j.at("workload").get<std::string>();
    m.incumbent_ns = j.at("incumbent_ns").get<double>();
    m.start_before_unix_ms = j.at("start_before_unix_ms").get<double>();
    for (const json& i : j.at("items")) m.items.push_back(item_of(i));
    if (j.contains("incumbent")) m.incumbent = item_of(j.at("incumbent"));
  });
}

std::optional<ResultMessage> decode_result(const std::string& text) {
  return decode_with<ResultMessage>(text, [](const json& j, ResultMessage& m) {
    m.batch = j.at("batch").get<int>();
    m.id = j.at("id").get<int>();
    m.result = measure::measure_result_from_json(j.at("result"));
  });
}

std::optional<BatchDone> decode_batch_done(const std::string& text) {
  return decode_with<BatchDone>(text, [](const json& j, BatchDone& m) { m.batch = j.at("batch").get<int>(); });
}

std::optional<Stop> decode_stop(const std::string& text) {
  return decode_with<Stop>(text, [](const json& j, Stop& m) { m.reason = j.at("reason").get<std::string>(); });
}

}  // namespace ktune::cluster
