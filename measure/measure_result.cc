#include "measure/measure_result.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace ktune::measure {
namespace {

constexpr std::array<std::pair<MeasureStatus, std::string_view>, 8> kNames = {{
    {MeasureStatus::kOk, "ok"},
    {MeasureStatus::kRejected, "rejected"},
    {MeasureStatus::kBuildError, "build_error"},
    {MeasureStatus::kBuildTimeout, "build_timeout"},
    {MeasureStatus::kCrash, "crash"},
    {MeasureStatus::kRunTimeout, "run_timeout"},
    {MeasureStatus::kRuntimeError, "runtime_error"},
    {MeasureStatus::kWrongResult, "wrong_result"},
}};

}  // namespace

std::string_view to_string(MeasureStatus status) {
  for (const auto& [s, name] : kNames) {
    if (s == status) return name;
  }
  return "unknown";
}

std::optional<MeasureStatus> measure_status_from_string(std::string_view text) {
  for (const auto& [s, name] : kNames) {
    if (name == text) return s;
  }
  return std::nullopt;
}

std::string describe(const MeasureResult& r) {
  char buf[256];
  if (r.ok()) {
    std::snprintf(buf, sizeof(buf), "ok median %.4g ms (min %.4g ms, IQR %.3g ms, %d runs, %d threads)",
                  r.median_ns / 1e6, r.min_ns / 1e6, r.spread_ns / 1e6, r.repeats, r.threads);
    return buf;
  }
  std::string s(to_string(r.status));
  if (!r.message.empty()) s += ": " + r.message;
  return s;
}

nlohmann::json to_json(const MeasureResult& r) {
  return {{"status", std::string(to_string(r.status))},
          {"message", r.message},
          {"signal", r.signal},
          {"max_error", r.max_error},
          {"median_ns", r.median_ns},
          {"min_ns", r.min_ns},
          {"spread_ns", r.spread_ns},
          {"repeats", r.repeats},
          {"threads", r.threads},
          {"build_ms", r.build_ms},
          {"run_wall_ms", r.run_wall_ms}};
}

MeasureResult measure_result_from_json(const nlohmann::json& j) {
  MeasureResult r;
  const auto status = measure_status_from_string(j.at("status").get<std::string>());
  if (!status) throw std::invalid_argument("unknown status");
  r.status = *status;
  r.message = j.at("message").get<std::string>();
  r.signal = j.at("signal").get<int>();
  r.max_error = j.at("max_error").get<double>();
  r.median_ns = j.at("median_ns").get<double>();
  r.min_ns = j.at("min_ns").get<double>();
  r.spread_ns = j.at("spread_ns").get<double>();
  r.repeats = j.at("repeats").get<int>();
  r.threads = j.at("threads").get<int>();
  r.build_ms = j.at("build_ms").get<double>();
  r.run_wall_ms = j.at("run_wall_ms").get<double>();
  return r;
}

}  // namespace ktune::measure
