#include "kernels/bundle_build.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/error.h"
#include "common/halide_version.h"
#include "common/version.h"
#include "kernels/bundle_runner.h"
#include "kernels/export_compile.h"
#include "kernels/export_files.h"
#include "kernels/export_plan.h"
#include "kernels/generated_program.h"
#include "schedule_store/stored_database.h"
#include "scheduler/apply.h"
#include "scheduler/rng.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device_target.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;

// A schedule chosen for a spec and why.
struct Choice {
  scheduler::Schedule schedule;
  std::string origin;  // "heuristic" or "sample"
};

// What each planned kernel came from, parallel to plan.kernels.
struct CandidateOrigin {
  std::string origin;     // "heuristic" or "sample"
  std::string spec_file;  // the bundled spec, relative to the bundle
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

// Removes what an earlier bundle in `out` left, manifest first, so a half-built bundle
// never looks complete.
void clear_bundle_dir(const fs::path& out, const std::string& flag_value) {
  if (fs::exists(out) && !fs::is_directory(out)) {
    throw UserError(format_user_error(flag_value, "--out", "exists and is not a directory"));
  }
  fs::remove(out / "manifest.json");
  for (const char* d : {"lib", "include", "test_data", "specs", "obj"}) fs::remove_all(out / d);
}

// The heuristic plus up to n-1 distinct sampled valid schedules of `space`.
std::vector<Choice> choose_candidates(const scheduler::Space& space, int n, uint64_t seed) {
  std::vector<Choice> chosen = {{space.heuristic(), "heuristic"}};
  std::set<std::string> seen = {chosen[0].schedule.hash()};
  scheduler::Rng rng(seed);
  for (int tries = 0; static_cast<int>(chosen.size()) < n && tries < 20 * n; ++tries) {
    std::optional<scheduler::Schedule> x = space.sample(rng);
    if (x && seen.insert(x->hash()).second) chosen.push_back({*x, "sample"});
  }
  return chosen;
}

// Plans the candidates of spec number `s` into `plan`, copying the spec into the bundle.
void plan_spec(const BundleRequest& req, size_t s, const scheduler::TargetInfo& target, const fs::path& out,
               ExportPlan& plan, std::vector<CandidateOrigin>& origins, const BundleNote& note) {
  std::shared_ptr<const subgraphs::Subgraph> sg = subgraphs::load_spec_subgraph(req.specs[s]);
  const std::string spec_file = "specs/" + std::to_string(s) + "_" + fs::path(req.specs[s]).filename().string();
  fs::create_directories(out / "specs");
  fs::copy_file(req.specs[s], out / spec_file, fs::copy_options::overwrite_existing);
  const scheduler::Space space(scheduler::analyze(*sg, target));
  const std::vector<Choice> chosen = choose_candidates(space, req.candidates, req.seed * 7919 + s);
  if (static_cast<int>(chosen.size()) < req.candidates) {
    note(sg->name() + ": found only " + std::to_string(chosen.size()) + " distinct valid schedules");
  }
  for (const Choice& choice : chosen) {
    PlannedKernel k;
    k.function = "ktune_c" + std::to_string(plan.kernels.size());
    k.subgraph = sg;
    k.workload_name = sg->name();
    k.workload_key = sg->key().key;
    k.test_data_name = "spec" + std::to_string(s);  // one copy of the data per spec, not per candidate
    k.schedule = choice.schedule;
    k.schedule_hash = choice.schedule.hash();
    k.applied = scheduler::apply(choice.schedule, *sg, space.analysis());
    if (!k.applied.ok) {
      note("skipped " + sg->name() + " schedule " + k.schedule_hash + ": " + k.applied.error);
      continue;
    }
    plan.kernels.push_back(std::move(k));
    origins.push_back({choice.origin, spec_file});
  }
}

// Compiles DIR/run from DIR/run.cc and the library, for the device's architecture (a cross
// compile for an Arm device built on x86); returns the command.
std::string compile_runner(const fs::path& out, const std::string& halide_target, const BundleNote& note) {
  const ProgramCompiler compiler = program_compiler_for(halide_target);
  const std::string command = shell_quote(compiler.cxx) + " -std=c++17 -O2 " + compiler.flags + " -I " +
                              shell_quote((out / "include").string()) + " " + shell_quote((out / "run.cc").string()) +
                              " " + shell_quote((out / "lib" / library_file(kBundleLibraryName)).string()) +
                              " -lpthread -ldl -lm -o " + shell_quote((out / "run").string());
  note(command);
  if (std::system(command.c_str()) != 0) {
    throw std::runtime_error("compiling the bundle's runner failed: " + command +
                             (compiler.cross ? " (Debian's g++-aarch64-linux-gnu is the cross compiler; "
                                               "scripts/setup.sh installs it)"
                                             : ""));
  }
  return command;
}

std::vector<BundleTensorFile> tensor_files(const std::vector<subgraphs::TensorInfo>& tensors,
                                           const std::vector<std::string>& params, size_t first,
                                           const std::string& dir, bool reference) {
  std::vector<BundleTensorFile> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    out.push_back({tensors[i].name, subgraphs::to_string(tensors[i].dtype), tensors[i].shape,
                   tensors[i].mins_or_zero(), dir + "/" + data_file(params[first + i], tensors[i].dtype, reference)});
  }
  return out;
}

BundleManifest manifest_of(const BundleRequest& req, const targets::Device& device, const ExportPlan& plan,
                           const std::vector<CandidateOrigin>& origins) {
  BundleManifest m;
  m.ktune_version = ktune_version();
  m.halide_version = kHalideVersion;
  m.halide_target = plan.halide_target;
  m.seed = req.seed;
  m.device_name = req.device;
  m.device = device;
  m.device_key = plan.device_key;
  m.library = "lib/" + library_file(kBundleLibraryName);
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    const PlannedKernel& k = plan.kernels[c];
    const std::vector<std::string> params = parameter_names(k);
    const std::string dir = test_data_dir(k);
    m.candidates.push_back({static_cast<int64_t>(c), k.function, k.workload_name, k.workload_key,
                            origins[c].spec_file, origins[c].origin, k.schedule_hash, k.schedule,
                            tensor_files(k.subgraph->inputs(), params, 0, dir, false),
                            tensor_files(k.subgraph->outputs(), params, k.subgraph->inputs().size(), dir, true)});
  }
  return m;
}

}  // namespace

BundleBuild build_bundle(const BundleRequest& req, const BundleNote& note) {
  if (req.out.empty()) throw UserError("bundle: --out DIR is required");
  if (req.candidates < 1) throw UserError("bundle: --candidates must be at least 1");
  const targets::Device device = schedule_store::resolve_device_in(req.device, req.db, "bundle: --device");
  targets::check_device_target(req.target, req.device, device);
  const scheduler::TargetInfo target = scheduler::target_info_from_device(device);
  const fs::path out = req.out;
  clear_bundle_dir(out, req.out);

  ExportPlan plan;
  plan.device_key = targets::device_key(device);
  plan.halide_target = device.halide_target;
  plan.device_kind = device.kind;
  std::vector<CandidateOrigin> origins;
  for (size_t s = 0; s < req.specs.size(); ++s) plan_spec(req, s, target, out, plan, origins, note);
  if (plan.kernels.empty()) throw UserError("bundle: no candidate could be scheduled");

  BundleBuild built;
  const int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  note("compiling " + std::to_string(plan.kernels.size()) + " candidates for " + plan.halide_target + " ...");
  built.compile_ms = compile_library(plan, (out / "lib" / library_file(kBundleLibraryName)).string(),
                                     (out / "obj").string(), jobs)
                         .wall_ms;
  fs::remove_all(out / "obj");
  const ExportInfo info{kBundleLibraryName, "(bundle)", ktune_version(), kHalideVersion, true, req.seed};
  write_text(out / header_file(kBundleLibraryName), header_text(plan, info));
  for (const std::string& h : runtime_header_paths()) {
    fs::copy_file(h, out / "include" / fs::path(h).filename(), fs::copy_options::overwrite_existing);
  }
  write_test_data(plan, req.seed, out.string());
  write_text(out / "run.cc", runner_source_text(plan, std::string(kBundleLibraryName) + ".h"));
  built.runner_command = compile_runner(out, plan.halide_target, note);
  built.manifest = manifest_of(req, device, plan, origins);
  write_text(out / "manifest.json", to_json(built.manifest).dump(2) + "\n");
  return built;
}

}  // namespace ktune::kernels
