// The subcommands of the `ktune` binary. Each cmd_<name>.cc defines its options struct,
// registers its flags on a CLI11 subcommand, and returns the function that runs it.
// main.cc holds the table that lists them.
#pragma once

#include <functional>

#include "common/halide_version.h"

namespace CLI {
class App;
}

namespace ktune::cli {

// The Halide version stamped on database rows (common/halide_version.h).
using ::ktune::kHalideVersion;

// Runs a parsed subcommand and returns the process exit code (0 ok, 1 failure, 2 usage).
// Throws ktune::UserError for bad input; main maps it to exit code 2.
using CommandRunner = std::function<int()>;

// One row of the subcommand table in main.cc.
struct CommandEntry {
  const char* name;     // subcommand name as typed by the user
  const char* summary;  // one line for `ktune --help`
  CommandRunner (*register_fn)(CLI::App& subcommand);
};

CommandRunner register_show(CLI::App& subcommand);
CommandRunner register_space(CLI::App& subcommand);
CommandRunner register_tune(CLI::App& subcommand);
CommandRunner register_query(CLI::App& subcommand);
CommandRunner register_export(CLI::App& subcommand);
CommandRunner register_bundle(CLI::App& subcommand);
CommandRunner register_ingest(CLI::App& subcommand);
CommandRunner register_db(CLI::App& subcommand);
CommandRunner register_devices(CLI::App& subcommand);
CommandRunner register_measure(CLI::App& subcommand);
CommandRunner register_sample(CLI::App& subcommand);
CommandRunner register_model(CLI::App& subcommand);
CommandRunner register_bench(CLI::App& subcommand);
CommandRunner register_report(CLI::App& subcommand);

}  // namespace ktune::cli
