// Workloads and devices as rows of the tuning database, and back: the row of a spec
// subgraph (its spec stored so it can be rebuilt), the subgraph a stored row describes,
// and the target facts of a stored device. Shared by the commands that write measurements
// (`ktune sample`) and the ones that read them back (`ktune model`).
#pragma once

#include <memory>
#include <string>

#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "tuning_db/records.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {

// The row of a subgraph loaded from the spec file `spec_path` (its JSON is stored, with
// the name filled in, so `subgraph_from_record` can rebuild it).
tuning_db::WorkloadRecord workload_record(const subgraphs::SpecSubgraph& subgraph, const std::string& spec_path);

// The subgraph a stored workload was built from; null when the row has no spec (a
// Generator workload) or the spec no longer parses.
std::unique_ptr<subgraphs::SpecSubgraph> subgraph_from_record(const tuning_db::WorkloadRecord& workload);

// The row of a detected device.
tuning_db::DeviceRecord device_record(const targets::Device& device);

// The device key `name` means: "host" is the machine ktune runs on, anything else a key.
std::string resolve_device_key(const std::string& name);

// Target facts of a stored device (cores, lanes, caches), for analyses.
scheduler::TargetInfo target_of(tuning_db::TuningDb& db, const std::string& device_key);

}  // namespace ktune::cli
