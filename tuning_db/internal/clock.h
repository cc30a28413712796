// Time stamps of the tuning database: integer milliseconds since the Unix epoch (UTC) in
// SQLite, ISO-8601 text ("2024-05-01T12:00:00.123Z") in the JSON export.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ktune::tuning_db::internal {

// Wall-clock time now, ms since the Unix epoch.
int64_t now_unix_ms();

// "YYYY-MM-DDTHH:MM:SS.mmmZ" for `unix_ms`.
std::string format_iso8601(int64_t unix_ms);

// Parses what format_iso8601 writes (the ".mmm" part is optional); nullopt otherwise.
std::optional<int64_t> parse_iso8601(std::string_view text);

}  // namespace ktune::tuning_db::internal
