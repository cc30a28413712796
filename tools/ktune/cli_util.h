// Helpers shared by the subcommands: the options that name subgraphs (spec files and
// generators) and loading them, generator parameters, the checks of numeric flags, and
// reading a schedule file. Errors are ktune::UserErrors that
// name the flag or file.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/schedule.h"
#include "subgraphs/subgraph.h"

namespace ktune::cli {

// "k=v" strings (from --param or --input) as a map; UserError naming `flag` otherwise.
std::map<std::string, std::string> parse_params(const std::vector<std::string>& params,
                                                const std::string& flag = "--param");

// Every spec file, then every generator (LIB:NAME) with `params` (GeneratorParams, k=v),
// `inputs` (scalar input values, name=value) and `input_ranges` (seeded ranges of input
// buffers, NAME=LO,HI).
std::vector<std::unique_ptr<subgraphs::Subgraph>> load_subgraphs(const std::vector<std::string>& specs,
                                                                 const std::vector<std::string>& generators,
                                                                 const std::vector<std::string>& params,
                                                                 const std::vector<std::string>& inputs = {},
                                                                 const std::vector<std::string>& input_ranges = {});

// The options that name the subgraphs a command works on: spec files (the positional) and
// Halide Generators (--generator LIB:NAME) with their parameters (--param k=v), scalar
// inputs (--input name=value) and the ranges of their input data (--input-range NAME=LO,HI).
struct SubgraphOptions {
  std::vector<std::string> specs;
  std::vector<std::string> generators;
  std::vector<std::string> params;
  std::vector<std::string> inputs;
  std::vector<std::string> input_ranges;

  // Whether neither a spec nor a Generator is named.
  bool empty() const { return specs.empty() && generators.empty(); }
  // Every spec, then every Generator (load_subgraphs).
  std::vector<std::unique_ptr<subgraphs::Subgraph>> load() const;
};

// How a command words its subgraph options; --param, --input and --input-range read the
// same everywhere.
struct SubgraphOptionsHelp {
  const char* specs;      // the positional
  const char* generator;  // --generator
  // One subgraph: the positional is `spec`, and --generator is given at most once.
  bool single = false;
};

// Adds the subgraph options to `sub`, in the order --help lists them, filling `opt`.
void add_subgraph_options(CLI::App& sub, SubgraphOptions& opt, const SubgraphOptionsHelp& help);

// Range checks of the numeric flags; a value outside is a usage error (exit 2) that names
// the flag and the range. finite_range also refuses nan and inf.
CLI::Validator finite_range(double lo, double hi);
// Kernel threads: 0 (every core) up to four times the cores; above the core count it
// warns that threads will share cores.
CLI::Validator thread_count();
// The timing flags shared by measure, tune, sample and bench.
void check_timing_flags(CLI::Option* repeat_min_ms, CLI::Option* min_repeats);

// A schedule JSON file; UserError naming the file (and the field) when it is unreadable.
scheduler::Schedule read_schedule_file(const std::string& path);

// `--allocation aot|process` into `value`: how measured kernels' buffers are allocated
// (measure::RunOptions::aot_allocation is `value == "aot"`).
CLI::Option* add_allocation_option(CLI::App& sub, std::string& value);

}  // namespace ktune::cli
