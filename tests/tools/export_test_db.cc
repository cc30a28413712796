// Writes a small tuning database for the export tests through TuningDb's public API,
// without tuning: each spec is stored with its `naive` schedule, measured on the host
// device with the given median and spread (in ns), so the tests know which schedule and
// which times the export must report.
//   ktune_export_test_db DB MEDIAN_NS SPREAD_NS SPEC...
// Prints one line per spec: "<name> <workload key> <schedule hash>".
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/halide_version.h"
#include "schedule_store/db_records.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s DB MEDIAN_NS SPREAD_NS SPEC...\n", argv[0]);
    return 2;
  }
  try {
    using namespace ktune;
    tuning_db::OpenOptions options;
    options.versions = {KTUNE_VERSION, ktune::kHalideVersion};
    tuning_db::TuningDb db = tuning_db::TuningDb::open(argv[1], options);
    const targets::Device host = targets::detect_host_device();
    const int64_t device_id = db.upsert_device(schedule_store::device_record(host));
    for (int i = 4; i < argc; ++i) {
      const auto sg = subgraphs::load_spec_subgraph(argv[i]);
      const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(host)));
      const scheduler::Schedule schedule = space.naive();
      const int64_t workload_id = db.upsert_workload(schedule_store::workload_record(*sg));
      tuning_db::MeasurementRecord m;
      m.schedule_id = db.upsert_schedule(workload_id, schedule.hash(), schedule.to_json().dump());
      m.device_id = device_id;
      m.median_ns = std::atof(argv[2]);
      m.min_ns = *m.median_ns;
      m.spread_ns = std::atof(argv[3]);
      m.repeats = 10;
      m.threads = 1;
      db.record_measurement(m);
      std::printf("%s %s %s\n", sg->name().c_str(), sg->key().key.c_str(), schedule.hash().c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_export_test_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
