// Names shared by the JSON export and import of a tuning database.
#pragma once

namespace ktune::tuning_db::internal {

// Value of the top-level "format" member.
inline constexpr const char* kJsonFormatName = "ktune-tuning-db";
// Value of "format_version"; bump when the layout changes incompatibly.
inline constexpr int kJsonFormatVersion = 2;  // 2: bench_results

}  // namespace ktune::tuning_db::internal
