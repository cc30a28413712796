// The tuning database as every reader and writer of ktune opens it: with this build's
// version stamps (so rows of another ktune or Halide read as stale), a read-only open that
// refuses a missing file, the page check run before an answer is given, and the device
// description stored behind a key. Workload and device rows themselves are made by
// schedule_store/db_records.h; stored schedules are read back by schedule_store/stored_schedule.h.
//
//   tuning_db::TuningDb db = open_tuning_db(opt.db, sqlite::OpenMode::kReadOnly, PageCheck::kIfSmall);
//   const targets::Device d = targets::resolve_device(opt.device, stored_description_in(db), "--device");
#pragma once

#include <cstdint>
#include <string>

#include "scheduler/target_info.h"
#include "targets/device_lookup.h"
#include "tuning_db/tuning_db.h"

namespace ktune::schedule_store {

// Whether the pages of the file are read through before it is used.
enum class PageCheck {
  kNone,     // damaged pages are reported when a query reads them
  kIfSmall,  // check_pages_if_small: for answers, models and kernels drawn from the file
};

// Opens `path` in `mode` stamped with ktune_version() and kHalideVersion. Throws UserError
// naming the file for a missing one (unless kCreate), a damaged one, or a newer schema.
tuning_db::TuningDb open_tuning_db(const std::string& path, sqlite::OpenMode mode,
                                   PageCheck check = PageCheck::kNone);

// What `db` stores under a device key, for targets::resolve_device.
targets::StoredDescription stored_description_in(tuning_db::TuningDb& db);

// A device named on the command line: a known name ("host", "h100") needs no database;
// anything else is a key `db_path` must describe (empty: no database, so only names
// resolve). Throws UserError naming `where` (the flag) as targets::resolve_device does,
// and the file when `db_path` does not exist.
targets::Device resolve_device_in(const std::string& name, const std::string& db_path, const std::string& where);

// Target facts of a stored device (cores, lanes, caches), for analyses. Throws UserError
// for a key the database does not describe.
scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key);

// The largest file whose pages are checked before an answer is given: about a second.
inline constexpr uintmax_t kMaxPageCheckedBytes = uintmax_t{256} << 20;

// TuningDb::check_pages for a file of at most kMaxPageCheckedBytes; larger files are read as
// they are (their damaged pages are still reported when a query reads them).
void check_pages_if_small(tuning_db::TuningDb& db);

}  // namespace ktune::schedule_store
