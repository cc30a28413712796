// The candidates of one (workload, device), ranked by the rule in best_rule.h: shared by the
// best queries and by prune, which must keep what the rule would pick.
#pragma once

#include <cstdint>
#include <vector>

#include "tuning_db/best_rule.h"
#include "tuning_db/internal/db_impl.h"

namespace ktune::tuning_db::internal {

// Reads the ok measurements of the workload on the device and ranks their schedules; empty
// when there are none.
std::vector<Candidate> ranked_candidates(TuningDb::Impl& db, int64_t workload_id,
                                         int64_t device_id);

}  // namespace ktune::tuning_db::internal
