#include "tuning_db/internal/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ktune::tuning_db::internal {

int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string format_iso8601(int64_t unix_ms) {
  int64_t seconds = unix_ms / 1000;
  int64_t millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[80];
  std::snprintf(out, sizeof(out), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return out;
}

std::optional<int64_t> parse_iso8601(std::string_view text) {
  const std::string s(text);
  int year, month, day, hour, minute, second, millis = 0, used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &used) != 6 ||
      used != 19) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    if (s.size() < pos + 4) return std::nullopt;
    for (size_t i = pos + 1; i < pos + 4; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      millis = millis * 10 + (s[i] - '0');
    }
    pos += 4;
  }
  if (pos + 1 != s.size() || s[pos] != 'Z') return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

}  // namespace ktune::tuning_db::internal
