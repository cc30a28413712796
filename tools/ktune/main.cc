// Entry point of the `ktune` binary: a git-style table of subcommands.
// Results go to stdout, progress and errors to stderr. Exit codes: 0 ok, 1 failure,
// 2 usage or bad input (docs/usage.md, "Exit codes").
// With KTUNE_PARSE_ONLY=1 in the environment the command line is only parsed: exit 0 when
// it parses, 2 with the parse error otherwise, and no subcommand runs (the documentation
// test, tests/docs/check_doc_commands.py, checks every documented command this way).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <exception>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/version.h"
#include "tools/ktune/commands.h"

namespace {

using ktune::cli::CommandEntry;

const std::vector<CommandEntry>& command_table() {
  static const std::vector<CommandEntry> table = {
      {"show", "Print a subgraph: key, shapes, stages, FLOPs, bytes; --check verifies it",
       ktune::cli::register_show},
      {"tune", "Tune subgraphs into a database (--budget 8h or --trials N); resumable",
       ktune::cli::register_tune},
      {"query", "The best stored schedule of a workload on a device, as JSON, Halide source or CMake",
       ktune::cli::register_query},
      {"export", "Compile the tuned kernels of a database into one static library, header and manifest",
       ktune::cli::register_export},
      {"bundle", "Build GPU or CPU candidates, inputs and a runner into a folder to time on the device",
       ktune::cli::register_bundle},
      {"ingest", "Record the results of a bundle's runner as measurements in a database",
       ktune::cli::register_ingest},
      {"space", "Sample, validate and print schedules of a subgraph; --stats measures acceptance",
       ktune::cli::register_space},
      {"db", "Inspect and maintain a tuning database: stats, best, merge, prune, vacuum, ...",
       ktune::cli::register_db},
      {"devices", "Print the devices ktune can tune for, with their keys",
       ktune::cli::register_devices},
      {"measure", "Build one schedule of a subgraph, run it isolated, verify and time it",
       ktune::cli::register_measure},
      {"sample", "Measure sampled and mutated schedules of subgraphs into a database (cost-model data)",
       ktune::cli::register_sample},
      {"model", "Train and evaluate the learned cost model on a database's measurements",
       ktune::cli::register_model},
      {"bench", "Compare ktune's schedules with Halide's autoschedulers, OpenBLAS, oneDNN and the roofline",
       ktune::cli::register_bench},
      {"report", "Write one self-contained HTML page: tuning curves, times, model accuracy, benchmarks",
       ktune::cli::register_report},
  };
  return table;
}

// The first word, when it is meant as a command and names none: CLI11 would only say that
// a subcommand is required.
std::optional<std::string> unknown_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  for (const CommandEntry& entry : command_table()) {
    if (std::string(entry.name) == argv[1]) return std::nullopt;
  }
  return std::string(argv[1]);
}

// "tune " when the command line starts with a command, for the help hint of an error.
std::string command_word(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  return std::string(argv[1]) + " ";
}

std::string command_names() {
  std::string out;
  for (const CommandEntry& entry : command_table()) out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out;
}

// Files that cannot be created or written where the user pointed are bad input (2); a full
// disk or an I/O error is a failure of the environment (1).
int report_filesystem_error(const std::filesystem::filesystem_error& e) {
  const std::string path = e.path1().string();
  const int code = e.code().value();
  const bool environment = ktune::is_machine_write_failure(code);
  std::fprintf(stderr, "ktune: %s: %s%s\n", environment ? "failure" : "error",
               path.empty() ? "" : (path + ": ").c_str(), e.code().message().c_str());
  return environment ? ktune::kExitFailure : ktune::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ktune: a kernel autotuner for fused Halide subgraphs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ktune ") + ktune::ktune_version());

  std::vector<std::pair<CLI::App*, ktune::cli::CommandRunner>> runners;
  for (const CommandEntry& entry : command_table()) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.summary);
    runners.emplace_back(sub, entry.register_fn(*sub));
  }

  if (const auto unknown = unknown_command(argc, argv)) {
    std::fprintf(stderr, "ktune: error: unknown command \"%s\" (commands: %s; ktune --help)\n", unknown->c_str(),
                 command_names().c_str());
    return ktune::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with exit code 0; every other parse error is
    // a usage error (2) in ktune's one-line form.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::fprintf(stderr, "ktune: error: %s (ktune %s--help)\n", e.what(), command_word(argc, argv).c_str());
    return ktune::kExitUsage;
  }
  if (const char* parse_only = std::getenv("KTUNE_PARSE_ONLY"); parse_only && std::strcmp(parse_only, "1") == 0) {
    return ktune::kExitOk;
  }

  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
  } catch (const ktune::UserError& e) {
    std::fprintf(stderr, "ktune: error: %s\n", e.what());
    return ktune::kExitUsage;
  } catch (const std::filesystem::filesystem_error& e) {
    return report_filesystem_error(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: failure: %s\n", e.what());
    return ktune::kExitFailure;
  }
  return ktune::kExitUsage;
}
