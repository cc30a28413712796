// Writes a planned kernel library (`ktune export`, kernels/export_plan.h) into a folder a
// product links: DIR/lib<NAME>.a (one function per workload, one Halide runtime),
// DIR/include/<NAME>.h (plus Halide's runtime headers), the Halide source of every schedule
// in DIR/schedules/, optional seeded inputs, references and a check program in
// DIR/test_data/, and DIR/manifest.json, written last. Everything is built in a staging
// folder inside DIR first and moved into place at the end, so a failed export never leaves
// a library that looks complete.
//
//   const ExportPlan plan = plan_export(request);
//   const ExportedLibrary lib = write_library(plan, {"ktune_kernels", "out", request.db_path});
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "kernels/export_compile.h"
#include "kernels/export_plan.h"

namespace ktune::kernels {

struct LibraryOptions {
  std::string name = "ktune_kernels";  // lib<name>.a, include/<name>.h; a C identifier
  std::string out;                     // the folder (created; the export's own files replaced)
  std::string db_path;                 // recorded in the manifest and the header
  bool test_data = false;              // also write seeded inputs, references and check.cc
  uint64_t seed = 1;                   // seed of the test data
  int jobs = 0;                        // kernels compiled at once; 0: one per core
};

struct ExportedLibrary {
  nlohmann::ordered_json manifest;  // as written to DIR/manifest.json
  CompileStats compiled;            // time and archive size
  std::string archive_path;         // DIR/lib<name>.a
};

// Throws UserError for a name that is not a C identifier, a missing --out or one that is a
// file: call it before planning, so bad flags fail before the database is read.
void check_library_options(const LibraryOptions& options);

// Checks the options as check_library_options does. Throws UserError for a name that is not a C identifier or an --out that is a file; a
// filesystem error or a failed compile leaves DIR as it was (the staging folder removed).
// `note` receives a line of progress before the compile.
ExportedLibrary write_library(const ExportPlan& plan, const LibraryOptions& options,
                              const std::function<void(const std::string&)>& note);

}  // namespace ktune::kernels
