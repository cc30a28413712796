// Entry point of the `ktune` binary: a git-style table of subcommands.
// Results go to stdout, progress and errors to stderr. Exit codes: 0 ok, 1 failure,
// 2 usage or bad input (README.md, "Exit codes").
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/error.h"
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ktune: a kernel autotuner for fused Halide subgraphs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ktune ") + KTUNE_VERSION);

  std::vector<std::pair<CLI::App*, ktune::cli::CommandRunner>> runners;
  for (const CommandEntry& entry : command_table()) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.summary);
    runners.emplace_back(sub, entry.register_fn(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit codes from 100 up for parse errors; ktune reports them as usage (2).
    const int code = app.exit(e);
    return code == 0 ? ktune::kExitOk : ktune::kExitUsage;
  }

  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
  } catch (const ktune::UserError& e) {
    std::fprintf(stderr, "ktune: error: %s\n", e.what());
    return ktune::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune: failure: %s\n", e.what());
    return ktune::kExitFailure;
  }
  return ktune::kExitUsage;
}
