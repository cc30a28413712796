// `ktune export --db F --device host|KEY (--workload NAME|KEY|SPEC ... | --all) --out DIR
//  [--name LIB] [--fallback heuristic|error] [--test-data [--seed S]] [--format text|json]`:
// writes a tuned kernel library a product links: DIR/lib<LIB>.a (one function per workload,
// one Halide runtime), DIR/include/<LIB>.h (plus Halide's runtime headers), the Halide source
// of every schedule in DIR/schedules/, optional seeded inputs and references in
// DIR/test_data/, and DIR/manifest.json, written last. Everything is built in a staging
// folder inside DIR first, so a failed export never leaves a library that looks complete.
// Workloads without a tuned schedule follow --fallback: the heuristic schedule, reported on
// stderr and marked FALLBACK in the table, or exit 1 naming them before anything is written.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "common/error.h"
#include "targets/c_identifier.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"
#include "tools/ktune/export_check_program.h"
#include "tools/ktune/export_compile.h"
#include "tools/ktune/export_files.h"
#include "tools/ktune/export_plan.h"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  ExportRequest request;
  std::string fallback = "heuristic";
  std::string out;
  std::string name = "ktune_kernels";
  bool test_data = false;
  uint64_t seed = 1;
  int jobs = 0;
  std::string format = "text";
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw_write_error(path.string(), "", "the file", errno);
}

// Moves the finished files from `staging` into `out`: the files this export owns are
// replaced, the manifest is removed first and written last.
void commit(const fs::path& staging, const fs::path& out, const std::string& name) {
  fs::remove(out / "manifest.json");
  for (const std::string& dir : {std::string("schedules"), std::string("test_data")}) {
    fs::remove_all(out / dir);
    if (fs::exists(staging / dir)) fs::rename(staging / dir, out / dir);
  }
  fs::create_directories(out / "include");
  for (const auto& entry : fs::directory_iterator(staging / "include")) {
    fs::rename(entry.path(), out / "include" / entry.path().filename());
  }
  fs::rename(staging / library_file(name), out / library_file(name));
  fs::rename(staging / "manifest.json", out / "manifest.json");
}

int run_export(ExportOptions& opt) {
  if (opt.out.empty()) throw UserError("export: --out DIR is required");
  if (!targets::is_c_identifier(opt.name)) {
    throw UserError("export: --name \"" + opt.name + "\" must be a C identifier (letters, digits, '_'): it names the "
                    "library and its header");
  }
  if (fs::exists(opt.out) && !fs::is_directory(opt.out)) {
    throw UserError(format_user_error(opt.out, "--out", "exists and is not a directory"));
  }
  opt.request.fallback = opt.fallback == "error" ? ExportFallback::kError : ExportFallback::kHeuristic;
  const ExportPlan plan = plan_export(opt.request);
  for (const PlannedKernel& k : plan.kernels) {
    if (k.tuned && k.best->stale) {
      std::fprintf(stderr, "ktune: warning: the schedule of %s was measured by another ktune or Halide version "
                   "(ktune %s, Halide %s); its time may not hold (`ktune db revalidate` measures it again)\n",
                   k.workload_name.c_str(), k.best->measurement.ktune_version.c_str(),
                   k.best->measurement.halide_version.c_str());
    }
  }

  if (!plan.untuned.empty()) {
    const bool refuse = opt.request.fallback == ExportFallback::kError;
    std::fprintf(stderr, "ktune: %s: %zu requested workload(s) have no usable tuned schedule on device %s%s\n",
                 refuse ? "error" : "WARNING", plan.untuned.size(), plan.device_key.c_str(),
                 refuse ? " (--fallback error); nothing was written" : "; they use the heuristic schedule (FALLBACK):");
    for (const std::string& u : plan.untuned) std::fprintf(stderr, "  %s\n", u.c_str());
    if (refuse) return kExitFailure;
  }

  const fs::path out = opt.out;
  const fs::path staging = out / (".ktune-export-" + std::to_string(getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  ExportInfo info{opt.name, opt.request.db_path, KTUNE_VERSION, kHalideVersion, opt.test_data, opt.seed};
  nlohmann::ordered_json manifest;
  CompileStats compiled;
  try {
    const int jobs = opt.jobs > 0 ? opt.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::fprintf(stderr, "ktune: compiling %zu kernels for %s ...\n", plan.kernels.size(), plan.halide_target.c_str());
    compiled = compile_library(plan, (staging / library_file(opt.name)).string(), (staging / "obj").string(), jobs);
    fs::remove_all(staging / "obj");
    write_text(staging / header_file(opt.name), header_text(plan, info));
    for (const std::string& h : runtime_header_paths()) {
      fs::copy_file(h, staging / "include" / fs::path(h).filename());
    }
    for (const PlannedKernel& k : plan.kernels) {
      write_text(staging / schedule_source_file(k), schedule_source_text(k, plan));
    }
    if (opt.test_data) {
      write_test_data(plan, opt.seed, staging.string());
      write_text(staging / "test_data" / "check.cc", check_program_text(plan, info));
    }
    manifest = manifest_json(plan, info);
    write_text(staging / "manifest.json", manifest.dump(2) + "\n");
    commit(staging, out, opt.name);
    fs::remove_all(staging);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }

  if (opt.format == "json") {
    std::printf("%s\n", manifest.dump(2).c_str());
  } else {
    std::printf("%s", manifest_table(manifest).c_str());
  }
  std::fprintf(stderr, "ktune: wrote %s (%zu kernels, %lld bytes, one Halide runtime) in %.1f s; manifest %s\n",
               (out / library_file(opt.name)).string().c_str(), plan.kernels.size(),
               static_cast<long long>(compiled.archive_bytes), compiled.wall_ms / 1000.0,
               (out / "manifest.json").string().c_str());
  if (!plan.untuned.empty()) {
    std::fprintf(stderr, "ktune: WARNING: %zu kernel(s) use the FALLBACK heuristic schedule (see above)\n",
                 plan.untuned.size());
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_export(CLI::App& sub) {
  auto opt = std::make_shared<ExportOptions>();
  sub.add_option("--db", opt->request.db_path, "tuning database (read only)");
  sub.add_option("--device", opt->request.device, "host, or a device key")->capture_default_str();
  sub.add_option("--workload", opt->request.workloads, "workload name, key (or key prefix), or spec file; repeatable");
  sub.add_flag("--all", opt->request.all, "every workload tuned on the device");
  sub.add_option("--out", opt->out, "output directory");
  sub.add_option("--name", opt->name, "library name: lib<NAME>.a and include/<NAME>.h")->capture_default_str();
  sub.add_option("--fallback", opt->fallback, "untuned workloads: heuristic schedule, or fail (exit 1)")
      ->check(CLI::IsMember({"heuristic", "error"}))
      ->capture_default_str();
  sub.add_flag("--test-data", opt->test_data, "also write seeded inputs and reference outputs (raw, each of its type: x.f32, out.ref.u8)");
  sub.add_option("--seed", opt->seed, "seed of the test data")->capture_default_str();
  sub.add_option("--jobs", opt->jobs, "kernels compiled at once; 0: one per core")->check(thread_count())->capture_default_str();
  sub.add_option("--format", opt->format, "stdout: a table, or the manifest")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [opt] { return run_export(*opt); };
}

}  // namespace ktune::cli
