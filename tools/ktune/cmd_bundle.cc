// `ktune bundle SPEC... --device h100|host|KEY [--target cuda|host] [--db F] --out DIR
//  [--candidates N] [--seed S]`: builds a measurement bundle here, to be timed on the machine
// that has the device (a GPU machine, or the CPU it was built for). Per spec the candidates
// are the device's space's heuristic schedule plus N-1 distinct sampled valid schedules; all
// are compiled with no_runtime for the device's Halide target into DIR/lib/libktune_bundle.a
// with ONE standalone runtime (CUDA or CPU), beside seeded inputs and references
// (DIR/test_data/), the specs (DIR/specs/), the runner DIR/run (compiled here with the
// system C++ compiler, `$CXX` or c++; its source is DIR/run.cc) and DIR/manifest.json,
// written last. `DIR/run --json > results.json` on the device's machine, then `ktune ingest`.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "common/error.h"
#include "scheduler/apply.h"
#include "scheduler/rng.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "tools/ktune/bundle_device.h"
#include "tools/ktune/bundle_runner.h"
#include "tools/ktune/generated_program.h"
#include "tools/ktune/device_target.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"
#include "tools/ktune/export_compile.h"
#include "tools/ktune/export_files.h"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryName = "ktune_bundle";

struct BundleOptions {
  std::vector<std::string> specs;
  std::string device;
  std::string target;  // "cuda", "host" or empty: a check of the device's kind
  std::string db;      // where a --device key is looked up; empty: known names only
  std::string out;
  int candidates = 8;
  uint64_t seed = 1;
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out) throw UserError(format_user_error(path.string(), "", "cannot write the file"));
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

nlohmann::ordered_json tensor_files(const std::vector<subgraphs::TensorInfo>& tensors,
                                    const std::vector<std::string>& params, size_t first, const std::string& dir,
                                    bool reference) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < tensors.size(); ++i) {
    out.push_back({{"name", tensors[i].name}, {"dtype", subgraphs::to_string(tensors[i].dtype)},
                   {"shape", tensors[i].shape}, {"mins", tensors[i].mins_or_zero()},
                   {"file", dir + "/" + data_file(params[first + i], tensors[i].dtype, reference)}});
  }
  return out;
}

int run_bundle(const BundleOptions& opt) {
  if (opt.out.empty()) throw UserError("bundle: --out DIR is required");
  if (opt.candidates < 1) throw UserError("bundle: --candidates must be at least 1");
  const BundleDevice resolved = resolve_bundle_device(opt.device, opt.db);
  check_device_target(opt.target, resolved.name, resolved.device);
  const targets::Device& device = resolved.device;
  const bool cuda = device.is_gpu();
  const scheduler::TargetInfo target = scheduler::target_info_from_device(device);
  const fs::path out = opt.out;
  if (fs::exists(out) && !fs::is_directory(out)) {
    throw UserError(format_user_error(opt.out, "--out", "exists and is not a directory"));
  }
  fs::remove(out / "manifest.json");
  for (const char* d : {"lib", "include", "test_data", "specs", "obj"}) fs::remove_all(out / d);

  ExportPlan plan;
  plan.device_key = resolved.key;
  plan.halide_target = device.halide_target;
  std::vector<std::string> origins, spec_files;
  for (size_t s = 0; s < opt.specs.size(); ++s) {
    std::shared_ptr<const subgraphs::Subgraph> sg = subgraphs::load_spec_subgraph(opt.specs[s]);
    const std::string spec_file = "specs/" + std::to_string(s) + "_" + fs::path(opt.specs[s]).filename().string();
    fs::create_directories(out / "specs");
    fs::copy_file(opt.specs[s], out / spec_file, fs::copy_options::overwrite_existing);
    const scheduler::Space space(scheduler::analyze(*sg, target));
    std::vector<std::pair<scheduler::Schedule, std::string>> chosen = {{space.heuristic(), "heuristic"}};
    std::set<std::string> seen = {chosen[0].first.hash()};
    scheduler::Rng rng(opt.seed * 7919 + s);
    for (int tries = 0; static_cast<int>(chosen.size()) < opt.candidates && tries < 20 * opt.candidates; ++tries) {
      std::optional<scheduler::Schedule> x = space.sample(rng);
      if (x && seen.insert(x->hash()).second) chosen.push_back({*x, "sample"});
    }
    if (static_cast<int>(chosen.size()) < opt.candidates) {
      std::fprintf(stderr, "ktune: %s: found only %zu distinct valid schedules\n", sg->name().c_str(), chosen.size());
    }
    for (auto& [schedule, origin] : chosen) {
      PlannedKernel k;
      k.function = "ktune_c" + std::to_string(plan.kernels.size());
      k.subgraph = sg;
      k.workload_name = sg->name();
      k.workload_key = sg->key().key;
      k.test_data_name = "spec" + std::to_string(s);  // one copy of the data per spec, not per candidate
      k.schedule = schedule;
      k.schedule_hash = schedule.hash();
      k.applied = scheduler::apply(schedule, *sg, space.analysis());
      if (!k.applied.ok) {
        std::fprintf(stderr, "ktune: skipped %s schedule %s: %s\n", sg->name().c_str(), k.schedule_hash.c_str(),
                     k.applied.error.c_str());
        continue;
      }
      plan.kernels.push_back(std::move(k));
      origins.push_back(origin);
      spec_files.push_back(spec_file);
    }
  }
  if (plan.kernels.empty()) throw UserError("bundle: no candidate could be scheduled");

  const int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::fprintf(stderr, "ktune: compiling %zu candidates for %s ...\n", plan.kernels.size(), plan.halide_target.c_str());
  const CompileStats compiled = compile_library(plan, (out / "lib" / library_file(kLibraryName)).string(),
                                                (out / "obj").string(), jobs);
  fs::remove_all(out / "obj");
  const ExportInfo info{kLibraryName, "(bundle)", KTUNE_VERSION, kHalideVersion, true, opt.seed};
  write_text(out / header_file(kLibraryName), header_text(plan, info));
  for (const std::string& h : runtime_header_paths()) {
    fs::copy_file(h, out / "include" / fs::path(h).filename(), fs::copy_options::overwrite_existing);
  }
  write_test_data(plan, opt.seed, out.string());
  write_text(out / "run.cc", runner_source_text(plan, std::string(kLibraryName) + ".h"));

  const char* cxx = std::getenv("CXX");
  const std::string compile = shell_quote(cxx && *cxx ? cxx : "c++") + " -std=c++17 -O2 -I " +
                              shell_quote((out / "include").string()) + " " + shell_quote((out / "run.cc").string()) +
                              " " + shell_quote((out / "lib" / library_file(kLibraryName)).string()) +
                              " -lpthread -ldl -lm -o " + shell_quote((out / "run").string());
  std::fprintf(stderr, "ktune: %s\n", compile.c_str());
  if (std::system(compile.c_str()) != 0) {
    std::fprintf(stderr, "ktune: error: compiling the runner failed (command above)\n");
    return kExitFailure;
  }

  nlohmann::ordered_json manifest;
  manifest["format"] = "ktune-bundle-1";
  manifest["ktune_version"] = KTUNE_VERSION;
  manifest["halide_version"] = kHalideVersion;
  manifest["halide_target"] = plan.halide_target;
  manifest["seed"] = opt.seed;
  manifest["device"] = {{"name", opt.device},
                        {"kind", targets::to_string(device.kind)},
                        {"key", plan.device_key},
                        {"description", targets::to_json(device)}};
  manifest["runner"] = "run";
  manifest["library"] = "lib/" + library_file(kLibraryName);
  manifest["candidates"] = nlohmann::ordered_json::array();
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    const PlannedKernel& k = plan.kernels[c];
    const std::vector<std::string> params = parameter_names(k);
    const std::string dir = test_data_dir(k);
    manifest["candidates"].push_back({{"id", c},
                                      {"function", k.function},
                                      {"workload_name", k.workload_name},
                                      {"workload_key", k.workload_key},
                                      {"spec", spec_files[c]},
                                      {"origin", origins[c]},
                                      {"schedule_hash", k.schedule_hash},
                                      {"schedule", k.schedule.to_json()},
                                      {"inputs", tensor_files(k.subgraph->inputs(), params, 0, dir, false)},
                                      {"outputs", tensor_files(k.subgraph->outputs(), params,
                                                               k.subgraph->inputs().size(), dir, true)}});
  }
  write_text(out / "manifest.json", manifest.dump(2) + "\n");
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    std::printf("%-3zu %-12s %-20s %-9s %s\n", c, plan.kernels[c].function.c_str(),
                plan.kernels[c].workload_name.c_str(), origins[c].c_str(), plan.kernels[c].schedule_hash.c_str());
  }
  std::fprintf(stderr, "ktune: wrote bundle %s for %s (%zu candidates, %.1f s to compile); on the %s run "
               "`%s/run --json%s > results.json`, then `ktune ingest results.json --bundle %s --db F`\n",
               out.string().c_str(), plan.device_key.c_str(), plan.kernels.size(), compiled.wall_ms / 1000.0,
               cuda ? "GPU machine" : "CPU it was built for", out.string().c_str(), cuda ? "" : " [--threads N]",
               out.string().c_str());
  return kExitOk;
}

}  // namespace

CommandRunner register_bundle(CLI::App& sub) {
  auto opt = std::make_shared<BundleOptions>();
  sub.add_option("specs", opt->specs, "subgraph spec files")->required();
  sub.add_option("--device", opt->device,
                 "the device: a GPU (h100, a100, h200, rtx4090, cuda), this CPU (host), or a key stored in --db")
      ->required();
  sub.add_option("--target", opt->target, "check that the device is a CUDA GPU (cuda) or a CPU (host)")
      ->check(CLI::IsMember({"cuda", "host"}));
  sub.add_option("--db", opt->db, "tuning database (read only) where a --device key is looked up");
  sub.add_option("--out", opt->out, "output directory")->required();
  sub.add_option("--candidates", opt->candidates, "schedules per spec: the heuristic and N-1 samples")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.add_option("--seed", opt->seed, "seed of the samples and the test data")->capture_default_str();
  return [opt] { return run_bundle(*opt); };
}

}  // namespace ktune::cli
