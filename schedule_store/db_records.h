// Subgraphs and devices as rows of the tuning database, and back. A spec workload stores
// its spec JSON (parse_spec_text reads it back); a Generator workload stores its library,
// name and parameters. Every command that writes or rebuilds workloads goes through here,
// so the stored form has one definition.
#pragma once

#include <memory>

#include "measure/measure_result.h"
#include "subgraphs/subgraph.h"
#include "targets/device.h"
#include "tuning_db/records.h"

namespace ktune::schedule_store {

tuning_db::WorkloadRecord workload_record(const subgraphs::Subgraph& subgraph);

// The subgraph a stored workload was built from; null when the row does not say (or its
// spec no longer parses, or its generator library cannot be loaded).
std::unique_ptr<subgraphs::Subgraph> subgraph_from_record(const tuning_db::WorkloadRecord& workload);

tuning_db::DeviceRecord device_record(const targets::Device& device);

// The row of one measurement result: timings only for ok results, failures with their
// message. `run_id` < 0 means no run.
tuning_db::MeasurementRecord measurement_record(const measure::MeasureResult& result, int64_t schedule_id,
                                               int64_t device_id, int64_t run_id);

}  // namespace ktune::schedule_store
