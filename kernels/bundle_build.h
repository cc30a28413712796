// Builds a measurement bundle (`ktune bundle`): kernels compiled here for a device that is
// on another machine (a GPU, or a CPU built for), to be timed there and recorded with
// `ktune ingest` (kernels/bundle_ingest.h). Per spec the candidates are the device's space's
// heuristic schedule plus sampled valid ones; all go into DIR/lib/libktune_bundle.a with ONE
// standalone runtime, beside seeded inputs and references (DIR/test_data/), the specs
// (DIR/specs/), the runner DIR/run (built with `$CXX` or c++ from DIR/run.cc,
// kernels/bundle_runner.h) and DIR/manifest.json, written last.
//
//   BundleRequest r; r.specs = {"softmax.json"}; r.device = "h100"; r.out = "b";
//   const BundleBuild built = build_bundle(r, [](const std::string& line) { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/bundle_manifest.h"

namespace ktune::kernels {

struct BundleRequest {
  std::vector<std::string> specs;  // spec files
  std::string device;              // a known name ("host", "h100") or a key stored in `db`
  std::string target;              // "cuda", "host" or empty: a check of the device's kind
  std::string db;                  // where a --device key is looked up; empty: known names only
  std::string out;                 // the bundle directory (created; its old bundle files replaced)
  int candidates = 8;              // schedules per spec: the heuristic and candidates-1 samples
  uint64_t seed = 1;               // seed of the samples and the test data
};

struct BundleBuild {
  BundleManifest manifest;     // as written to DIR/manifest.json
  double compile_ms = 0;       // compiling the kernels, ms
  std::string runner_command;  // the command that compiled the runner
};

// A line of progress or a warning, for stderr.
using BundleNote = std::function<void(const std::string&)>;

// The library name of every bundle: lib/libktune_bundle.a, include/ktune_bundle.h.
inline constexpr const char* kBundleLibraryName = "ktune_bundle";

// Builds the bundle. Throws UserError for bad flags, an unknown device, a spec that does not
// load or no candidate that schedules; std::runtime_error when the runner does not compile.
BundleBuild build_bundle(const BundleRequest& request, const BundleNote& note);

}  // namespace ktune::kernels
