#include "measure/measure_result.h"

#include <array>
#include <cstdio>
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

}  // namespace ktune::measure
