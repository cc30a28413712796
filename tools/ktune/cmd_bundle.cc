// `ktune bundle SPEC... --device h100|host|KEY [--target cuda|host] [--db F] --out DIR
//  [--candidates N] [--seed S]`: builds a measurement bundle here, to be timed on the machine
// that has the device (kernels/bundle_build.h): `DIR/run --json > results.json` there, then
// `ktune ingest`. Prints one line per candidate: id, function, workload, origin and hash.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "common/error.h"
#include "kernels/bundle_build.h"
#include "kernels/generated_program.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

int run_bundle(const kernels::BundleRequest& request) {
  const kernels::BundleBuild built =
      kernels::build_bundle(request, [](const std::string& line) { std::fprintf(stderr, "ktune: %s\n", line.c_str()); });
  const kernels::BundleManifest& m = built.manifest;
  for (const kernels::BundleCandidate& c : m.candidates) {
    std::printf("%-3lld %-12s %-20s %-9s %s\n", static_cast<long long>(c.id), c.function.c_str(),
                c.workload_name.c_str(), c.origin.c_str(), c.schedule_hash.c_str());
  }
  const bool gpu = m.device.is_gpu();
  std::fprintf(stderr, "ktune: wrote bundle %s for %s (%zu candidates, %.1f s to compile); on the %s run "
               "`%s/run --json%s > results.json`, then `ktune ingest results.json --bundle %s --db F`\n",
               request.out.c_str(), m.device_key.c_str(), m.candidates.size(), built.compile_ms / 1000.0,
               gpu ? "GPU machine" : "CPU it was built for", request.out.c_str(), gpu ? "" : " [--threads N]",
               request.out.c_str());
  if (kernels::program_compiler_for(m.halide_target).cross) {
    std::fprintf(stderr, "ktune: the runner is an arm64 program: copy %s to the board and run it there; here, "
                 "`qemu-aarch64-static %s/run` checks every candidate under emulation (its times are not the "
                 "board's, and ingest refuses them)\n", request.out.c_str(), request.out.c_str());
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_bundle(CLI::App& sub) {
  auto opt = std::make_shared<kernels::BundleRequest>();
  sub.add_option("specs", opt->specs, "subgraph spec files")->required();
  sub.add_option("--device", opt->device,
                 "the device: a GPU (h100, a100, h200, rtx4090, cuda), an Arm CPU (cortex-a76, neoverse-n1, "
                 "neoverse-v1), this CPU (host), or a key stored in --db")
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
