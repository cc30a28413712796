// `ktune model train --db F [--device host|KEY] [MODEL FLAGS] [--format text|json] [--export-csv F]`
// `ktune model eval  --db F [--device host|KEY] [--folds K] [--tie-ratio R] [MODEL FLAGS] [--format text|json] [--export-csv F]`
// MODEL FLAGS: --objective rank:pairwise|rank:ndcg|reg:squarederror --rounds N --max-depth N --eta X
// --threads N --seed S.
// train: recomputes the features of every schedule with an ok measurement on the device
// (from the stored schedule JSON and the workload's spec), evaluates on a held-out split,
// trains the XGBoost ranking model on everything and stores it in the database.
// eval: held-out evaluation two ways (a random split within workloads; whole workloads
// held out) of the learned model next to the analytical model and a random ranker; with
// --tie-ratio, only over pairs whose runtimes differ by more than the timing noise; then the
// noise ceiling: about how well any model over these features could rank these timings.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "common/error.h"
#include "cost_model/dataset.h"
#include "cost_model/evaluation.h"
#include "cost_model/features.h"
#include "cost_model/model_store.h"
#include "cost_model/noise_ceiling.h"
#include "schedule_store/db_records.h"
#include "schedule_store/stored_database.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct ModelOptions {
  std::string db;                // tuning database file
  std::string device = "host";   // device key, or "host"
  int rounds = 150;              // boosting rounds
  int max_depth = 6;             // tree depth
  double eta = 0.1;              // learning rate
  std::string objective = "rank:pairwise";  // XGBoost objective
  int threads = 1;               // XGBoost threads
  uint64_t seed = 1;             // split and model seed
  int folds = 10;                // at most this many folds when holding out workloads
  double tie_ratio = 0;          // eval: pairs within this relative difference are skipped
  std::string format = "text";   // text or json
  std::string export_csv;        // also write the training rows here; empty = no
  bool per_workload = false;     // text output: a line per workload too
};

cost_model::XgboostParams params_of(const ModelOptions& o) {
  if (o.rounds < 1) throw UserError(format_user_error("--rounds", "", "expected >= 1"));
  if (o.threads < 1) throw UserError(format_user_error("--threads", "", "expected >= 1"));
  if (o.max_depth < 1) throw UserError(format_user_error("--max-depth", "", "expected >= 1"));
  if (!(o.eta > 0 && o.eta <= 1)) throw UserError(format_user_error("--eta", "", "expected a value in (0, 1]"));
  cost_model::XgboostParams p;
  p.rounds = o.rounds;
  p.max_depth = o.max_depth;
  p.eta = o.eta;
  p.objective = o.objective;
  p.nthread = o.threads;
  p.seed = o.seed;
  return p;
}

// The rows as CSV: workload key, schedule hash, runtime, analytical score, then the features.
void write_csv(const cost_model::Dataset& data, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw UserError(format_user_error(path, "--export-csv", "cannot write the file"));
  out << "workload,schedule,runtime_ns,analytical";
  for (const std::string& n : cost_model::feature_names()) out << "," << n;
  out << "\n";
  for (size_t i = 0; i < data.samples.size(); ++i) {
    const cost_model::TrainingSample& s = data.samples[i];
    out << s.group << "," << data.schedule_hashes[i] << "," << s.runtime_ns << "," << data.analytical_scores[i];
    for (float f : s.features) out << "," << f;
    out << "\n";
  }
  std::fprintf(stderr, "wrote %zu rows to %s\n", data.samples.size(), path.c_str());
}

// The dataset of the device, with analyses rebuilt from the stored specs.
struct LoadedData {
  std::string device_key;                                      // resolved key
  std::map<std::string, std::unique_ptr<cost_model::FeatureExtractor>> extractors;  // by workload key; null: not rebuildable
  cost_model::Dataset data;                                    // the rows
};

LoadedData load(tuning_db::TuningDb& db, const ModelOptions& o) {
  LoadedData d;
  d.device_key = targets::resolve_device_key(o.device);
  const scheduler::TargetInfo target = schedule_store::target_of(db, d.device_key);
  d.data = cost_model::load_dataset(db, d.device_key, [&](const tuning_db::WorkloadRecord& w) -> const cost_model::FeatureExtractor* {
    auto it = d.extractors.find(w.key);
    if (it != d.extractors.end()) return it->second.get();
    const auto sg = schedule_store::subgraph_from_record(w);
    std::unique_ptr<cost_model::FeatureExtractor> ex;
    if (sg) ex = std::make_unique<cost_model::FeatureExtractor>(scheduler::analyze(*sg, target));
    return d.extractors.emplace(w.key, std::move(ex)).first->second.get();
  });
  for (const std::string& s : d.data.skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());
  std::fprintf(stderr, "%zu measured schedules (%d of them killed by the run limit) in %d workloads on device %s\n",
               d.data.samples.size(), d.data.timed_out, d.data.workloads(), d.device_key.c_str());
  if (d.data.samples.empty()) {
    throw UserError(format_user_error(o.db, "", "no ok measurements on device " + d.device_key +
                                                    "; measure some with `ktune sample`"));
  }
  if (!o.export_csv.empty()) write_csv(d.data, o.export_csv);
  return d;
}

void print_split(const cost_model::SplitEvaluation& e, const std::map<std::string, std::string>& names,
                 bool per_workload) {
  std::printf("%s (%d training rows, %d test rows, %d training%s)\n", e.name.c_str(), e.train_samples, e.test_samples,
              e.folds, e.folds == 1 ? "" : "s");
  std::printf("  %-11s %9s %7s %7s %9s %10s\n", "ranker", "pairwise", "top-1", "top-5", "spearman", "workloads");
  auto row = [](const char* name, const cost_model::RankingMetrics& m) {
    std::printf("  %-11s %9.3f %7.3f %7.3f %9.3f %10d\n", name, m.pairwise_accuracy, m.top1_recall, m.top5_recall,
                m.spearman, m.workloads);
  };
  row("xgboost", e.model);
  row("analytical", e.analytical);
  row("random", e.random);
  if (!per_workload) return;
  std::printf("  %-18s %8s %8s %8s  (pairwise accuracy: xgboost, analytical, random)\n", "workload", "xgboost",
              "analyt.", "random");
  for (const cost_model::WorkloadEvaluation& w : e.per_workload) {
    const auto it = names.find(w.group);
    std::printf("  %-18s %8.3f %8.3f %8.3f  (%d rows)\n", it == names.end() ? w.group.c_str() : it->second.c_str(),
                w.model.pairwise_accuracy, w.analytical.pairwise_accuracy, w.random.pairwise_accuracy, w.model.samples);
  }
}

// What the timings let any model over these features reach (noise_ceiling.h).
void print_ceiling(const cost_model::NoiseCeiling& c, size_t rows, const std::map<std::string, std::string>& names,
                   bool per_workload) {
  if (c.per_workload.empty()) {
    std::printf("noise ceiling: no two schedules of a workload share their features; not estimated\n");
    return;
  }
  std::printf("noise ceiling: %d of %zu schedules share their features with another; their runtimes spread %.1f%%\n"
              "  (sd of log runtime), so ranking by true runtime would reach about %.3f pairwise on these timings\n",
              c.shared_rows, rows, 100 * c.sigma, c.pairwise_accuracy);
  if (!per_workload) return;
  std::printf("  %-18s %8s %8s  (schedules sharing their features)\n", "workload", "spread", "ceiling");
  for (const cost_model::WorkloadNoise& w : c.per_workload) {
    const auto it = names.find(w.group);
    std::printf("  %-18s %7.1f%% %8.3f  (%d of %d)\n", it == names.end() ? w.group.c_str() : it->second.c_str(),
                100 * w.sigma, w.pairwise_accuracy, w.shared_rows, w.rows);
  }
}

// Workload names by key, for the per-workload lines.
std::map<std::string, std::string> workload_names(tuning_db::TuningDb& db, const cost_model::Dataset& data) {
  std::map<std::string, std::string> names;
  for (const cost_model::TrainingSample& s : data.samples) {
    if (names.count(s.group)) continue;
    const auto found = db.find_workloads(s.group);
    names[s.group] = found.empty() ? s.group : found.front().name;
  }
  return names;
}

tuning_db::TuningDb open_db(const ModelOptions& o) {
  if (o.db.empty()) throw UserError("model: --db FILE is required");
  // No model trained on a damaged file.
  return schedule_store::open_tuning_db(o.db, sqlite::OpenMode::kCreate, schedule_store::PageCheck::kIfSmall);
}

int run_train(const ModelOptions& o) {
  const cost_model::XgboostParams params = params_of(o);
  tuning_db::TuningDb db = open_db(o);
  const LoadedData d = load(db, o);
  const cost_model::TrainResult r = cost_model::train_and_store(db, d.device_key, d.data, params, o.seed);
  if (o.format == "json") {
    nlohmann::json j = {{"model_id", r.record.id},
                        {"kind", r.record.kind},
                        {"feature_version", r.record.feature_version},
                        {"samples", r.record.samples},
                        {"workloads", d.data.workloads()},
                        {"held_out", cost_model::to_json(r.held_out)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("stored model %lld (%s, feature version %d) trained on %lld schedules of %d workloads\n",
                static_cast<long long>(r.record.id), r.record.kind.c_str(), r.record.feature_version,
                static_cast<long long>(r.record.samples), d.data.workloads());
    print_split(r.held_out, workload_names(db, d.data), o.per_workload);
  }
  return kExitOk;
}

int run_eval(const ModelOptions& o) {
  const cost_model::XgboostParams params = params_of(o);
  if (o.folds < 2) throw UserError(format_user_error("--folds", "", "expected >= 2"));
  tuning_db::TuningDb db = open_db(o);
  const LoadedData d = load(db, o);
  const cost_model::SplitEvaluation within =
      cost_model::evaluate_within_workloads(d.data, params, 0.2, o.seed, o.tie_ratio);
  const cost_model::SplitEvaluation across =
      cost_model::evaluate_across_workloads(d.data, params, o.folds, o.seed, o.tie_ratio);
  const cost_model::NoiseCeiling ceiling = cost_model::estimate_noise_ceiling(d.data);
  if (o.format == "json") {
    const nlohmann::json j = {{"samples", d.data.samples.size()},
                              {"workloads", d.data.workloads()},
                              {"feature_version", cost_model::kFeatureVersion},
                              {"tie_ratio", o.tie_ratio},
                              {"within_workloads", cost_model::to_json(within)},
                              {"across_workloads", cost_model::to_json(across)},
                              {"noise_ceiling", cost_model::to_json(ceiling)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%zu schedules, %d workloads, feature version %d (%d features)\n", d.data.samples.size(),
                d.data.workloads(), cost_model::kFeatureVersion, cost_model::feature_count());
    if (o.tie_ratio > 0) {
      std::printf("pairwise accuracy over pairs whose runtimes differ by more than %g%%\n", 100 * o.tie_ratio);
    }
    const auto names = workload_names(db, d.data);
    print_split(within, names, o.per_workload);
    print_split(across, names, o.per_workload);
    print_ceiling(ceiling, d.data.samples.size(), names, o.per_workload);
  }
  return kExitOk;
}

void add_common(CLI::App* app, ModelOptions& o) {
  app->add_option("--db", o.db, "tuning database file")->required();
  app->add_option("--device", o.device, "device key, or host for this machine")->capture_default_str();
  app->add_option("--rounds", o.rounds, "boosting rounds")->check(CLI::Range(1, 100000))->capture_default_str();
  app->add_option("--max-depth", o.max_depth, "tree depth")->check(CLI::Range(1, 64))->capture_default_str();
  app->add_option("--eta", o.eta, "learning rate")->check(finite_range(1e-6, 1))->capture_default_str();
  app->add_option("--objective", o.objective, "XGBoost objective")
      ->check(CLI::IsMember({"rank:pairwise", "rank:ndcg", "reg:squarederror"}))
      ->capture_default_str();
  app->add_option("--threads", o.threads, "XGBoost threads")->check(thread_count())->capture_default_str();
  app->add_option("--seed", o.seed, "seed of the splits and the model")->capture_default_str();
  app->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app->add_option("--export-csv", o.export_csv, "also write the rows (workload, schedule, runtime, features) as CSV");
  app->add_flag("--per-workload", o.per_workload, "text output: the pairwise accuracy of every workload too");
}

}  // namespace

CommandRunner register_model(CLI::App& sub) {
  auto opt = std::make_shared<ModelOptions>();
  sub.require_subcommand(1);
  CLI::App* train = sub.add_subcommand("train", "Train the ranking model on a device's measurements and store it");
  add_common(train, *opt);
  CLI::App* eval = sub.add_subcommand("eval", "Held-out ranking accuracy against the analytical and random rankers");
  add_common(eval, *opt);
  eval->add_option("--folds", opt->folds, "folds when holding out whole workloads (at most one per workload)")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  eval->add_option("--tie-ratio", opt->tie_ratio,
                   "pairwise accuracy: skip pairs whose runtimes differ by at most this fraction (the timing noise), e.g. 0.05")
      ->check(finite_range(0, 10))
      ->capture_default_str();
  return [opt, train, eval] {
    if (train->parsed()) return run_train(*opt);
    if (eval->parsed()) return run_eval(*opt);
    throw UserError("model: give a subcommand: train or eval");
  };
}

}  // namespace ktune::cli
