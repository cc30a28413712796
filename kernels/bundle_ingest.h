// `ktune ingest`: what a bundle's runner measured on the device's machine (`DIR/run --json`)
// recorded as measurements of the candidates' schedules on the bundle's device. ok results
// keep their timings (and a CPU runner's thread count), failed ones (wrong_result,
// runtime_error) their message. Every result is checked against the manifest before anything
// is written, and everything is written in one transaction.
//
//   const BundleManifest m = read_bundle_manifest(dir);
//   const RunnerResults r = parse_runner_results(read_user_json(file, "results"), file, m, dir);
//   const IngestSummary s = ingest_results(m, dir, r, db);
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/bundle_manifest.h"
#include "measure/measure_result.h"
#include "tuning_db/tuning_db.h"

namespace ktune::kernels {

// One candidate's result, matched to the manifest.
struct RunnerResult {
  const BundleCandidate* candidate = nullptr;  // into the manifest it was parsed against
  measure::MeasureResult result;               // status, message, timings when ok
};

struct RunnerResults {
  int threads = 0;                   // a CPU runner's kernel threads; 0: unknown (CUDA)
  std::vector<RunnerResult> results;  // in the file's order
};

// Parses the runner's JSON output against `manifest` (which must outlive the result).
// Throws UserError naming `path` and the field for a runner that measured nothing
// ("error"), one that ran under an emulator ("emulated": its times are not the device's),
// results of another device's bundle, an id the manifest lacks, a function that differs
// from the manifest's, an unknown status, or an ok result without its timings.
RunnerResults parse_runner_results(const nlohmann::json& json, const std::string& path,
                                   const BundleManifest& manifest, const std::string& bundle_dir);

struct IngestSummary {
  size_t measurements = 0;  // rows written
  int ok = 0;               // of them, ok
};

// Records every result under the manifest's device, the workload of its bundled spec (whose
// key must match the manifest's) and its schedule, in one transaction.
IngestSummary ingest_results(const BundleManifest& manifest, const std::string& bundle_dir,
                             const RunnerResults& results, tuning_db::TuningDb& db);

}  // namespace ktune::kernels
