#include "kernels/library_export.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.h"
#include "common/halide_version.h"
#include "common/version.h"
#include "kernels/export_check_program.h"
#include "kernels/export_files.h"
#include "targets/c_identifier.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw_write_error(path.string(), "", "the file", errno);
}

}  // namespace

void check_library_options(const LibraryOptions& o) {
  if (o.out.empty()) throw UserError("export: --out DIR is required");
  if (!targets::is_c_identifier(o.name)) {
    throw UserError("export: --name \"" + o.name + "\" must be a C identifier (letters, digits, '_'): it names the "
                    "library and its header");
  }
  if (fs::exists(o.out) && !fs::is_directory(o.out)) {
    throw UserError(format_user_error(o.out, "--out", "exists and is not a directory"));
  }
}

namespace {

// Everything of the export, written under `staging`.
ExportedLibrary write_staged(const ExportPlan& plan, const LibraryOptions& o, const ExportInfo& info,
                             const fs::path& staging, const std::function<void(const std::string&)>& note) {
  ExportedLibrary lib;
  const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  note("compiling " + std::to_string(plan.kernels.size()) + " kernels for " + plan.halide_target + " ...");
  lib.compiled = compile_library(plan, (staging / library_file(o.name)).string(), (staging / "obj").string(), jobs);
  fs::remove_all(staging / "obj");
  write_text(staging / header_file(o.name), header_text(plan, info));
  for (const std::string& h : runtime_header_paths()) fs::copy_file(h, staging / "include" / fs::path(h).filename());
  for (const PlannedKernel& k : plan.kernels) write_text(staging / schedule_source_file(k), schedule_source_text(k, plan));
  if (o.test_data) {
    write_test_data(plan, o.seed, staging.string());
    write_text(staging / "test_data" / "check.cc", check_program_text(plan, info));
  }
  lib.manifest = manifest_json(plan, info);
  write_text(staging / "manifest.json", lib.manifest.dump(2) + "\n");
  return lib;
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

}  // namespace

ExportedLibrary write_library(const ExportPlan& plan, const LibraryOptions& o,
                              const std::function<void(const std::string&)>& note) {
  check_library_options(o);
  const fs::path out = o.out;
  const fs::path staging = out / (".ktune-export-" + std::to_string(getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  const ExportInfo info{o.name, o.db_path, ktune_version(), kHalideVersion, o.test_data, o.seed};
  try {
    ExportedLibrary lib = write_staged(plan, o, info, staging, note);
    commit(staging, out, o.name);
    fs::remove_all(staging);
    lib.archive_path = (out / library_file(o.name)).string();
    return lib;
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

}  // namespace ktune::kernels
