// `ktune sample SPEC... --db F [--count N] [--seed S] [--batch B] [--mutate-fraction P]
//  [--min-repeats N] [--repeat-min-ms MS] [--threads N] [--build-threads N]`
// Builds training data for the cost model: per subgraph, measures N new schedules (the
// naive and heuristic ones, random samples, and mutations of schedules already measured,
// half of them of the fastest quarter) through the measurement layer, and records every
// result (ok or not) in the tuning database with the schedule's JSON and hash. Schedules
// the database already holds for this device are not measured again, so a run can be
// resumed. Progress goes to stderr; a summary per subgraph to stdout.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/duration_text.h"
#include "common/error.h"
#include "measure/builder.h"
#include "measure/runner.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"
#include "search/db_records.h"
#include "search/progress.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

using scheduler::Schedule;

struct SampleOptions {
  std::vector<std::string> specs;  // JSON spec files
  std::string db;                  // tuning database file
  int count = 100;                 // new schedules measured per subgraph
  uint64_t seed = 1;               // sampling seed
  int batch = 8;                   // candidates built together
  double mutate_fraction = 0.5;    // share of candidates that mutate a measured schedule
  int min_repeats = 3;             // timed runs at least
  double repeat_min_ms = 30;       // timed milliseconds at least
  int threads = 0;                 // kernel threads; 0 = every core
  int build_threads = 0;           // concurrent compiles; 0 = every core
};

// A measured schedule that may be mutated.
struct Measured {
  Schedule schedule;  // the schedule
  double median_ns;   // its median time
};


// The next candidates: unmeasured schedules from the sampler or mutations of measured ones.
std::vector<Schedule> propose(const scheduler::Space& space, const std::vector<Measured>& measured,
                              std::set<std::string>& seen, int n, double mutate_fraction, scheduler::Rng& rng) {
  std::vector<Schedule> out;
  std::vector<const Measured*> ranked;
  for (const Measured& m : measured) ranked.push_back(&m);
  std::sort(ranked.begin(), ranked.end(), [](const Measured* a, const Measured* b) { return a->median_ns < b->median_ns; });
  for (int tries = 0; static_cast<int>(out.size()) < n && tries < 50 * n; ++tries) {
    std::optional<Schedule> s;
    if (!ranked.empty() && rng.chance(mutate_fraction)) {
      const size_t pool = rng.chance(0.5) ? std::max<size_t>(1, ranked.size() / 4) : ranked.size();
      s = space.mutate(ranked[rng.below(static_cast<int64_t>(pool))]->schedule, rng);
    } else {
      s = space.sample(rng);
    }
    if (s && seen.insert(s->hash()).second) out.push_back(*s);
  }
  return out;
}

int run_sample(const SampleOptions& opt) {
  if (opt.specs.empty()) throw UserError("sample: give at least one SPEC file");
  if (opt.db.empty()) throw UserError("sample: --db FILE is required");
  if (opt.count < 1) throw UserError(format_user_error("--count", "", "expected >= 1, found " + std::to_string(opt.count)));
  if (opt.batch < 1) throw UserError(format_user_error("--batch", "", "expected >= 1, found " + std::to_string(opt.batch)));
  if (opt.mutate_fraction < 0 || opt.mutate_fraction > 1) {
    throw UserError(format_user_error("--mutate-fraction", "", "expected a value in [0, 1]"));
  }
  std::vector<std::unique_ptr<subgraphs::SpecSubgraph>> subgraphs;
  for (const std::string& path : opt.specs) subgraphs.push_back(subgraphs::load_spec_subgraph(path));

  const targets::Device device = targets::detect_host_device();
  const scheduler::TargetInfo target = scheduler::target_info_from_device(device);
  tuning_db::OpenOptions db_options;
  db_options.versions = {KTUNE_VERSION, kHalideVersion};
  tuning_db::TuningDb db = tuning_db::TuningDb::open(opt.db, db_options);
  const std::string device_key = targets::device_key(device);
  const int64_t device_id = db.upsert_device(search::device_record(device));
  tuning_db::RunRecord run;
  nlohmann::json command = {"ktune", "sample", "--db", opt.db, "--count", std::to_string(opt.count), "--seed",
                            std::to_string(opt.seed)};
  for (const std::string& s : opt.specs) command.push_back(s);
  run.command = command.dump();
  run.budget = std::to_string(opt.count) + " schedules per subgraph";
  const int64_t run_id = db.begin_run(run);

  measure::RunOptions run_options;
  run_options.threads = opt.threads;
  run_options.timing.min_repeats = opt.min_repeats;
  run_options.timing.min_total_ms = opt.repeat_min_ms;
  measure::Runner runner(run_options);
  measure::BuildOptions build_options;
  build_options.threads = opt.build_threads;

  for (size_t i = 0; i < subgraphs.size(); ++i) {
    const subgraphs::SpecSubgraph& sg = *subgraphs[i];
    const scheduler::Space space(scheduler::analyze(sg, target));
    const tuning_db::WorkloadRecord workload = search::workload_record(sg);
    const int64_t workload_id = db.upsert_workload(workload);
    std::set<std::string> seen;
    for (const std::string& h : db.measured_schedule_hashes(workload.key, device_key)) seen.insert(h);
    std::vector<Measured> measured;
    for (const tuning_db::BestEntry& e : db.top_k(workload.key, device_key, 1 << 30)) {
      try {
        measured.push_back({Schedule::from_json(nlohmann::json::parse(e.schedule_json), e.schedule_hash),
                            *e.measurement.median_ns});
        runner.note_incumbent(workload.key, *e.measurement.median_ns);
      } catch (const std::exception&) {
      }
    }
    scheduler::Rng rng(opt.seed * 7919 + i);
    int done = 0, ok = 0;
    double best = measured.empty() ? -1 : std::min_element(measured.begin(), measured.end(), [](auto& a, auto& b) {
                                                            return a.median_ns < b.median_ns;
                                                          })->median_ns;
    std::vector<Schedule> first;
    for (const Schedule& s : {space.naive(), space.heuristic()}) {
      if (seen.insert(s.hash()).second) first.push_back(s);
    }
    while (done < opt.count) {
      std::vector<Schedule> batch = first;
      first.clear();
      if (static_cast<int>(batch.size()) > opt.count - done) batch.resize(opt.count - done);  // --count 1
      const int want = std::min(opt.batch, opt.count - done) - static_cast<int>(batch.size());
      for (Schedule& s : propose(space, measured, seen, std::max(0, want), opt.mutate_fraction, rng)) batch.push_back(s);
      if (batch.empty()) {
        std::fprintf(stderr, "[%s] no new schedules found; stopping at %d\n", sg.name().c_str(), done);
        break;
      }
      std::vector<measure::Candidate> candidates;
      for (const Schedule& s : batch) {
        candidates.push_back({&sg, s.hash(), scheduler::make_applier(s, space.analysis()), "sample"});
      }
      const measure::BuildBatch built = measure::build_candidates(candidates, build_options);
      for (size_t k = 0; k < built.candidates.size(); ++k) {
        const measure::MeasureResult r = runner.run(built.candidates[k]);
        const int64_t schedule_id = db.upsert_schedule(workload_id, batch[k].hash(), batch[k].to_json().dump());
        db.record_measurement(search::measurement_record(r, schedule_id, device_id, run_id));
        ++done;
        if (r.ok()) {
          ++ok;
          measured.push_back({batch[k], r.median_ns});
          if (best < 0 || r.median_ns < best) best = r.median_ns;
        }
      }
      std::fprintf(stderr, "[%s] %d/%d measured, %d ok, best %s\n", sg.name().c_str(), done, opt.count, ok,
                   ktune::format_ns(best).c_str());
    }
    std::printf("%-20s measured %4d  ok %4d  best %s\n", sg.name().c_str(), done, ok, ktune::format_ns(best).c_str());
    // Abandoned compiles may still run this subgraph's schedules against `space`.
    measure::wait_for_late_builds(60000);
  }
  db.end_run(run_id, tuning_db::RunStatus::kCompleted);
  measure::wait_for_late_builds(60000);
  return kExitOk;
}

}  // namespace

CommandRunner register_sample(CLI::App& sub) {
  auto opt = std::make_shared<SampleOptions>();
  sub.add_option("specs", opt->specs, "JSON spec files of the subgraphs")->required();
  sub.add_option("--db", opt->db, "tuning database file (created if missing)")->required();
  sub.add_option("--count", opt->count, "new schedules measured per subgraph")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  sub.add_option("--seed", opt->seed, "sampling seed")->capture_default_str();
  sub.add_option("--batch", opt->batch, "candidates built together")->check(CLI::Range(1, 4096))->capture_default_str();
  sub.add_option("--mutate-fraction", opt->mutate_fraction, "share of candidates mutated from measured schedules")
      ->check(finite_range(0, 1))
      ->capture_default_str();
  check_timing_flags(
      sub.add_option("--repeat-min-ms", opt->repeat_min_ms, "time each kernel for at least this many ms")->capture_default_str(),
      sub.add_option("--min-repeats", opt->min_repeats, "time each kernel at least this many times")->capture_default_str());
  sub.add_option("--threads", opt->threads, "kernel threads (0 = every core)")->check(thread_count())->capture_default_str();
  sub.add_option("--build-threads", opt->build_threads, "concurrent compiles (0 = every core)")
      ->check(thread_count())
      ->capture_default_str();
  return [opt] { return run_sample(*opt); };
}

}  // namespace ktune::cli
