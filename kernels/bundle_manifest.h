// The manifest of a measurement bundle (DIR/manifest.json): what `ktune bundle` built and
// what `ktune ingest` reads back, as one type written and parsed in one place. It names the
// device the kernels were compiled for (with the description that hashes to its key), the
// runner and the library, and per candidate its function, workload, spec file, schedule and
// the files of its seeded inputs and reference outputs.
//
//   const BundleManifest m = read_bundle_manifest(dir);   // UserError naming file and field
//   for (const BundleCandidate& c : m.candidates) ...
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/schedule.h"
#include "targets/device.h"

namespace ktune::kernels {

// The format tag written into every manifest; another tag is refused by ingest.
inline constexpr const char* kBundleFormat = "ktune-bundle-1";

// One tensor file of a candidate's test data, relative to the bundle directory.
struct BundleTensorFile {
  std::string name;        // the tensor's name in the spec
  std::string dtype;       // "f32", "u8", ...
  std::vector<int64_t> shape;  // extents, innermost first as Halide orders them
  std::vector<int64_t> mins;   // per-dimension minimum (zeros unless the spec places it)
  std::string file;        // "test_data/spec0/x.f32"
};

// One compiled schedule of the bundle.
struct BundleCandidate {
  int64_t id = 0;                          // the runner reports results by this id
  std::string function;                    // its C symbol in the bundle's library
  std::string workload_name;               // as the spec names it
  std::string workload_key;                // Subgraph::key().key of the spec
  std::string spec;                        // the bundled spec, relative to the bundle: "specs/0_x.json"
  std::string origin;                      // "heuristic" or "sample"
  std::string schedule_hash;               // schedule.hash()
  scheduler::Schedule schedule;            // what was compiled
  std::vector<BundleTensorFile> inputs;    // seeded inputs
  std::vector<BundleTensorFile> outputs;   // reference outputs
};

struct BundleManifest {
  std::string format = kBundleFormat;  // kBundleFormat
  std::string ktune_version;           // the ktune that built the bundle
  std::string halide_version;          // the Halide it compiled with
  std::string halide_target;           // the target every candidate is compiled for
  uint64_t seed = 1;                   // seed of the samples and the test data
  std::string device_name;             // --device as given: "host", "h100" or a stored key
  targets::Device device;              // the device's description
  std::string device_key;              // targets::device_key(device)
  std::string runner = "run";          // the runner program, relative to the bundle
  std::string library;                 // the kernels' static library, relative to the bundle
  std::vector<BundleCandidate> candidates;  // in id order, ids 0..n-1
};

// The manifest as JSON, keys in a fixed, readable order.
nlohmann::ordered_json to_json(const BundleManifest& manifest);

// Parses manifest JSON; `path` names the file in errors. Throws UserError naming the file
// and the field for a missing or mistyped field, an unknown format, a device key that does
// not match the description, or duplicate candidate ids.
BundleManifest bundle_manifest_from_json(const nlohmann::json& json, const std::string& path);

// Reads and parses DIR/manifest.json (UserError naming the file when absent or not JSON).
BundleManifest read_bundle_manifest(const std::string& bundle_dir);

// DIR/manifest.json.
std::string bundle_manifest_path(const std::string& bundle_dir);

}  // namespace ktune::kernels
