// The files `ktune export` writes beside the static library, made from the plan: the C
// header declaring every function (with shapes, schedule hash and measured time in a
// comment), the manifest (JSON), the table the command prints, each schedule's Halide
// source, and optionally seeded inputs with reference outputs as raw files of their types.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/export_plan.h"

namespace ktune::kernels {

// Where the library lives and what produced it; shared by the header and the manifest.
struct ExportInfo {
  std::string name;            // library name: lib<name>.a, include/<name>.h
  std::string db_path;         // the database it was exported from, as given
  std::string ktune_version;   // the exporting ktune
  std::string halide_version;  // the Halide it generated code with
  bool test_data = false;      // seeded inputs and references were written
  uint64_t seed = 1;           // their seed
};

// Parameter names of a kernel's function, inputs then outputs: the tensor names made C
// identifiers and distinct. The header and the test-data files use them.
std::vector<std::string> parameter_names(const PlannedKernel& k);
// The C names of k's scalar parameters, in Subgraph::scalars() order, unique among all of
// its parameter names.
std::vector<std::string> scalar_params(const PlannedKernel& k);

// Paths inside the export directory, relative to it.
std::string library_file(const std::string& name);           // "lib<name>.a"
std::string header_file(const std::string& name);            // "include/<name>.h"
std::string schedule_source_file(const PlannedKernel& k);    // "schedules/<function>.cc"
std::string test_data_dir(const PlannedKernel& k);           // "test_data/<test_data_name or function>"

// The C/C++ header declaring every function of the plan.
std::string header_text(const ExportPlan& plan, const ExportInfo& info);

// The Halide C++ schedule of one kernel, with a comment saying where it came from.
std::string schedule_source_text(const PlannedKernel& k, const ExportPlan& plan);

// The manifest: library, device, versions and one entry per kernel (manifest.json), its keys
// in a fixed, readable order.
nlohmann::ordered_json manifest_json(const ExportPlan& plan, const ExportInfo& info);

// One line per kernel with a loud FALLBACK marker for untuned ones, for stdout.
std::string manifest_table(const nlohmann::ordered_json& manifest);

// Writes the seeded inputs (<input>.<dtype>) and the reference outputs (<output>.ref.<dtype>)
// of every kernel under `dir`/test_data_dir(k)/, row-major elements of each tensor's type in
// the machine's byte order; a folder shared by several kernels (of one workload) is written, and its reference
// computed, once. Throws UserError naming the file when writing fails.
void write_test_data(const ExportPlan& plan, uint64_t seed, const std::string& dir);

}  // namespace ktune::kernels
