// Writes the database the plugin's project test builds against: the `heuristic` schedule
// of one Generator workload, measured on this machine and recorded through the TuningDb
// API (nothing is tuned), and the Halide source ktune prints for that schedule, which the
// generated .schedule.h must contain.
//
//   ktune_plugin_test_db LIB:NAME DB SOURCE_OUT [k=v ...]
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "common/error.h"
#include "common/halide_version.h"
#include "measure/builder.h"
#include "measure/runner.h"
#include "schedule_store/db_records.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"

int main(int argc, char** argv) {
  using namespace ktune;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s LIB:NAME DB SOURCE_OUT [k=v ...]\n", argv[0]);
    return 2;
  }
  try {
    std::map<std::string, std::string> params;
    for (int i = 4; i < argc; ++i) {
      const std::string kv = argv[i];
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) throw UserError("expected k=v, found " + kv);
      params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    const auto sg = subgraphs::load_generator_subgraph(argv[1], params);
    const targets::Device host = targets::detect_host_device();
    const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(host)));
    const scheduler::Schedule schedule = space.heuristic();
    const scheduler::ApplyResult applied = scheduler::apply(schedule, *sg, space.analysis());
    if (!applied.ok) throw std::runtime_error("the heuristic schedule does not apply: " + applied.error);

    measure::BuildOptions build_options;
    build_options.threads = 1;
    const measure::BuildBatch batch = measure::build_candidates(
        {measure::Candidate{sg.get(), schedule.hash(), scheduler::make_applier(schedule, space.analysis()), "heuristic"}},
        build_options);
    measure::RunOptions run_options;
    run_options.timing.min_repeats = 3;
    run_options.timing.min_total_ms = 20;
    measure::Runner runner(run_options);
    const measure::MeasureResult result = runner.run(batch.candidates[0]);
    if (!result.ok()) throw std::runtime_error("measuring the heuristic schedule failed: " + result.message);

    tuning_db::OpenOptions open;
    open.versions = {KTUNE_VERSION, ktune::kHalideVersion};
    tuning_db::TuningDb db = tuning_db::TuningDb::open(argv[2], open);
    const int64_t device = db.upsert_device(schedule_store::device_record(host));
    const int64_t workload = db.upsert_workload(schedule_store::workload_record(*sg));
    const int64_t schedule_id = db.upsert_schedule(workload, schedule.hash(), schedule.to_json().dump());
    db.record_measurement(schedule_store::measurement_record(result, schedule_id, device, -1));

    std::ofstream(argv[3]) << applied.source;
    std::printf("workload %s schedule %s median %.0f ns device %s\n", sg->key().key.c_str(), schedule.hash().c_str(),
                result.median_ns, targets::device_key(host).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_plugin_test_db: %s\n", e.what());
    return 1;
  }
}
