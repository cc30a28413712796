#include "tuning_db/records.h"

#include <array>

namespace ktune::tuning_db {
namespace {

constexpr std::array<std::string_view, 8> kMeasureStatusNames = {
    "ok",    "rejected",    "build_error",   "build_timeout",
    "crash", "run_timeout", "runtime_error", "wrong_result"};
constexpr std::array<std::string_view, 5> kRunStatusNames = {"running", "completed", "interrupted",
                                                             "failed", "killed"};

}  // namespace

std::string_view to_string(MeasureStatus status) {
  return kMeasureStatusNames[static_cast<size_t>(status)];
}

std::string_view to_string(RunStatus status) {
  return kRunStatusNames[static_cast<size_t>(status)];
}

std::optional<MeasureStatus> parse_measure_status(std::string_view text) {
  for (size_t i = 0; i < kMeasureStatusNames.size(); ++i) {
    if (kMeasureStatusNames[i] == text) return static_cast<MeasureStatus>(i);
  }
  return std::nullopt;
}

std::optional<RunStatus> parse_run_status(std::string_view text) {
  for (size_t i = 0; i < kRunStatusNames.size(); ++i) {
    if (kRunStatusNames[i] == text) return static_cast<RunStatus>(i);
  }
  return std::nullopt;
}

const std::vector<std::string_view>& measure_status_names() {
  static const std::vector<std::string_view> names(kMeasureStatusNames.begin(),
                                                   kMeasureStatusNames.end());
  return names;
}

const std::vector<std::string_view>& bench_status_names() {
  static const std::vector<std::string_view> names = {"ok",    "failed",  "wrong_result",
                                                      "crash", "timeout", "unsupported"};
  return names;
}

}  // namespace ktune::tuning_db
