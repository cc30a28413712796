// Helpers shared by the subcommands: generator parameters, loading subgraphs from spec
// files and generators, and reading a schedule file. Errors are ktune::UserErrors that
// name the flag or file.
#pragma once

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

// Every spec file, then every generator (LIB:NAME) with `params` (GeneratorParams, k=v) and
// `inputs` (scalar input values, name=value).
std::vector<std::unique_ptr<subgraphs::Subgraph>> load_subgraphs(const std::vector<std::string>& specs,
                                                                 const std::vector<std::string>& generators,
                                                                 const std::vector<std::string>& params,
                                                                 const std::vector<std::string>& inputs = {});

// A schedule JSON file; UserError naming the file (and the field) when it is unreadable.
scheduler::Schedule read_schedule_file(const std::string& path);

}  // namespace ktune::cli
