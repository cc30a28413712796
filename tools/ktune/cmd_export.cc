// `ktune export --db F --device host|KEY (--workload NAME|KEY|SPEC ... | --all) --out DIR
//  [--name LIB] [--fallback heuristic|error] [--test-data [--seed S]] [--format text|json]`:
// writes a tuned kernel library a product links (kernels/library_export.h). Workloads
// without a tuned schedule follow --fallback: the heuristic schedule, reported on stderr and
// marked FALLBACK in the table, or exit 1 naming them before anything is written.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

#include "common/error.h"
#include "kernels/export_files.h"
#include "kernels/export_plan.h"
#include "kernels/library_export.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct ExportOptions {
  kernels::ExportRequest request;
  kernels::LibraryOptions library;
  std::string fallback = "heuristic";
  std::string format = "text";
};

void warn_stale(const kernels::ExportPlan& plan) {
  for (const kernels::PlannedKernel& k : plan.kernels) {
    if (!k.tuned || !k.best->stale) continue;
    std::fprintf(stderr, "ktune: warning: the schedule of %s was measured by another ktune or Halide version "
                 "(ktune %s, Halide %s); its time may not hold (`ktune db revalidate` measures it again)\n",
                 k.workload_name.c_str(), k.best->measurement.ktune_version.c_str(),
                 k.best->measurement.halide_version.c_str());
  }
}

// Reports the untuned workloads; true when the export must stop (--fallback error).
bool report_untuned(const kernels::ExportPlan& plan, kernels::ExportFallback fallback) {
  if (plan.untuned.empty()) return false;
  const bool refuse = fallback == kernels::ExportFallback::kError;
  std::fprintf(stderr, "ktune: %s: %zu requested workload(s) have no usable tuned schedule on device %s%s\n",
               refuse ? "error" : "WARNING", plan.untuned.size(), plan.device_key.c_str(),
               refuse ? " (--fallback error); nothing was written" : "; they use the heuristic schedule (FALLBACK):");
  for (const std::string& u : plan.untuned) std::fprintf(stderr, "  %s\n", u.c_str());
  return refuse;
}

int run_export(ExportOptions& opt) {
  kernels::check_library_options(opt.library);
  opt.request.fallback =
      opt.fallback == "error" ? kernels::ExportFallback::kError : kernels::ExportFallback::kHeuristic;
  opt.library.db_path = opt.request.db_path;
  const kernels::ExportPlan plan = kernels::plan_export(opt.request);
  warn_stale(plan);
  if (report_untuned(plan, opt.request.fallback)) return kExitFailure;

  const kernels::ExportedLibrary lib = kernels::write_library(
      plan, opt.library, [](const std::string& line) { std::fprintf(stderr, "ktune: %s\n", line.c_str()); });
  if (opt.format == "json") {
    std::printf("%s\n", lib.manifest.dump(2).c_str());
  } else {
    std::printf("%s", kernels::manifest_table(lib.manifest).c_str());
  }
  std::fprintf(stderr, "ktune: wrote %s (%zu kernels, %lld bytes, one Halide runtime) in %.1f s; manifest %s/manifest.json\n",
               lib.archive_path.c_str(), plan.kernels.size(), static_cast<long long>(lib.compiled.archive_bytes),
               lib.compiled.wall_ms / 1000.0, opt.library.out.c_str());
  if (!plan.untuned.empty()) {
    std::fprintf(stderr, "ktune: WARNING: %zu kernel(s) use the FALLBACK heuristic schedule (see above)\n",
                 plan.untuned.size());
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_export(CLI::App& sub) {
  auto opt = std::make_shared<ExportOptions>();
  sub.add_option("--db", opt->request.db_path, "tuning database (read only)")->required();
  sub.add_option("--device", opt->request.device, "host, a known device (h100, cortex-a76, ...; ktune devices), or a device key")
      ->capture_default_str();
  sub.add_option("--workload", opt->request.workloads, "workload name, key (or key prefix), or spec file; repeatable");
  sub.add_flag("--all", opt->request.all, "every workload tuned on the device");
  sub.add_option("--out", opt->library.out, "output directory")->required();
  sub.add_option("--name", opt->library.name, "library name: lib<NAME>.a and include/<NAME>.h")->capture_default_str();
  sub.add_option("--fallback", opt->fallback, "untuned workloads: heuristic schedule, or fail (exit 1)")
      ->check(CLI::IsMember({"heuristic", "error"}))
      ->capture_default_str();
  sub.add_flag("--test-data", opt->library.test_data,
               "also write seeded inputs and reference outputs (raw, each of its type: x.f32, out.ref.u8)");
  sub.add_option("--seed", opt->library.seed, "seed of the test data")->capture_default_str();
  sub.add_option("--jobs", opt->library.jobs, "kernels compiled at once; 0: one per core")
      ->check(thread_count())
      ->capture_default_str();
  sub.add_option("--format", opt->format, "stdout: a table, or the manifest")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [opt] { return run_export(*opt); };
}

}  // namespace ktune::cli
