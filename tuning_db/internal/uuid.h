// Identities for rows that must survive merging databases (runs, measurements, models):
// time-ordered random UUIDs (version 7), so new rows land at the end of the uuid index.
#pragma once

#include <string>

namespace ktune::tuning_db::internal {

// A new UUIDv7 in the canonical 8-4-4-4-12 lowercase form. Safe across fork(): a child
// process reseeds its generator.
std::string new_uuid();

}  // namespace ktune::tuning_db::internal
