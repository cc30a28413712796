// `ktune ingest RESULTS.json --bundle DIR --db F`: records what a bundle's runner measured on
// the device's machine (`DIR/run --json > RESULTS.json`) as measurements of the candidates'
// schedules on the bundle's device (kernels/bundle_ingest.h), so `ktune query --device KEY`
// and export see them.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "common/error.h"
#include "common/user_json.h"
#include "kernels/bundle_ingest.h"
#include "kernels/bundle_manifest.h"
#include "schedule_store/stored_database.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct IngestOptions {
  std::string results;
  std::string bundle;
  std::string db;
};

int run_ingest(const IngestOptions& opt) {
  const kernels::BundleManifest manifest = kernels::read_bundle_manifest(opt.bundle);
  const kernels::RunnerResults results = kernels::parse_runner_results(
      read_user_json(opt.results, "JSON file"), opt.results, manifest, opt.bundle);
  tuning_db::TuningDb db = schedule_store::open_tuning_db(opt.db, sqlite::OpenMode::kCreate);
  const kernels::IngestSummary s = kernels::ingest_results(manifest, opt.bundle, results, db);
  std::printf("ingested %zu measurements (%d ok, %zu failed) on device %s into %s\n", s.measurements, s.ok,
              s.measurements - s.ok, manifest.device_key.c_str(), opt.db.c_str());
  return kExitOk;
}

}  // namespace

CommandRunner register_ingest(CLI::App& sub) {
  auto opt = std::make_shared<IngestOptions>();
  sub.add_option("results", opt->results, "the runner's JSON output (DIR/run --json)")->required();
  sub.add_option("--bundle", opt->bundle, "the bundle directory it came from")->required();
  sub.add_option("--db", opt->db, "tuning database (created if missing)")->required();
  return [opt] { return run_ingest(*opt); };
}

}  // namespace ktune::cli
