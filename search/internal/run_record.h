// The tuning run's own rows in the database: the file opened and stamped with this build's
// versions, and the run's row that its measurements refer to (marking the earlier runs of
// this host that died without a word as killed).
#pragma once

#include <cstdint>
#include <string>

#include "search/progress.h"
#include "search/tuner.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search::internal {

// This machine's host name; empty when the system does not say.
std::string host_name();

// The tuning database at opt.db_path, created if missing, stamped with this build's versions.
tuning_db::TuningDb open_database(const TuneOptions& opt);

// Begins this run's row in the runs table, so that its measurements and its end can refer
// to it; notes how many earlier runs of this host it marked as killed.
int64_t begin_run_record(tuning_db::TuningDb& store, const TuneOptions& opt, Progress& progress);

}  // namespace ktune::search::internal
