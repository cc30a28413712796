// Database helpers shared by the commands that read measurements back (`ktune model`,
// `ktune sample`, `query`, `export`): the key a --device name means, the target facts of a
// stored device, and the page check run before an answer is given.
// Workload and device rows themselves are made by search/db_records.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "targets/device_lookup.h"
#include "tuning_db/records.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {

// The device key `name` means (targets::resolve_device_key).
using targets::resolve_device_key;

// What `db` stores under a device key, for targets::resolve_device.
targets::StoredDescription stored_description_in(tuning_db::TuningDb& db);

// Target facts of a stored device (cores, lanes, caches), for analyses. Throws UserError
// for a key the database does not describe.
scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key);

// The largest file whose pages are checked before an answer is given: about a second.
inline constexpr uintmax_t kMaxPageCheckedBytes = uintmax_t{256} << 20;

// TuningDb::check_pages for a file of at most kMaxPageCheckedBytes; larger files are read as
// they are (their damaged pages are still reported when a query reads them).
void check_pages_if_small(tuning_db::TuningDb& db);

}  // namespace ktune::cli
