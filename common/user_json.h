// Reading the JSON files that users hand ktune (specs, schedules, bundle results): the
// nesting is bounded, a key given twice in one object is refused, and every problem is a
// UserError naming the file, the JSON path or line, and what was expected.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ktune {

// The deepest nesting of arrays and objects a user's file may have. Specs and schedules
// nest five levels; deeper documents are refused before they are built.
inline constexpr int kMaxJsonDepth = 64;

// The whole text of `path`; `what` says what the file is for ("spec file") in the errors
// for a missing file, a directory or an unreadable one.
std::string read_user_file(const std::string& path, const std::string& what);

// Parses `text` read from `file`. Throws UserError for invalid JSON (with line and
// column), numbers that do not fit in a double, nesting deeper than kMaxJsonDepth, and
// duplicate keys (with the JSON path of the second one).
nlohmann::json parse_user_json(const std::string& text, const std::string& file);

// read_user_file and parse_user_json in one step.
nlohmann::json read_user_json(const std::string& path, const std::string& what);

}  // namespace ktune
