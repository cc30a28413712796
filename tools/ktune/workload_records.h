// Device lookups shared by the commands that read measurements back (`ktune model`,
// `ktune sample`): the key a --device name means and the target facts of a stored device.
// Workload and device rows themselves are made by search/db_records.h.
#pragma once

#include <memory>
#include <string>

#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "tuning_db/records.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {

// The device key `name` means: "host" is the machine ktune runs on, a known GPU name
// ("h100", targets/cuda_devices.h) that card as `ktune bundle` builds for it from this
// machine, anything else a key.
std::string resolve_device_key(const std::string& name);

// Target facts of a stored device (cores, lanes, caches), for analyses.
scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key);

}  // namespace ktune::cli
