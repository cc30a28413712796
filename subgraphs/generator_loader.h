// Loading a user's Halide Generator from a shared library (HALIDE_REGISTER_GENERATOR,
// linked to libHalide, without GenGen) and turning one of its generators into a
// Subgraph. A library is first loaded in a child process, because a library that
// registers an already registered generator name aborts the process that loads it.
//
//   auto sg = load_generator_subgraph("libmy_gens.so:blur", {{"scale", "2"}});
//
// The generator must set estimates on every input and output (they give the shapes)
// and skip its own schedule when `auto_schedule` is true.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "subgraphs/pipeline_subgraph.h"

namespace ktune::subgraphs {

// "path/to/lib.so:generator_name", split at the last ':'. UserError if malformed.
struct GeneratorRef {
  std::string library;    // path of the shared library
  std::string generator;  // registered generator name
};
GeneratorRef parse_generator_ref(const std::string& text);

// Loads `library` (once per process) and returns the generator names it registered.
// UserError if the file does not exist, is not a shared library, registers no
// generator, or registers a name that clashes with one already loaded.
std::vector<std::string> load_generator_library(const std::string& library);

// A Generator's pipeline, built for the host with `auto_schedule` on (so its own schedule
// is skipped) and handed to ktune through an autoscheduler hook.
class GeneratorSubgraph : public PipelineSubgraph {
 public:
  // Loads the library, instantiates the generator with `params` and reads its shapes.
  GeneratorSubgraph(const GeneratorRef& ref, std::map<std::string, std::string> params);

  std::string kind() const override { return "generator"; }

  const GeneratorRef& ref() const { return ref_; }
  const std::map<std::string, std::string>& params() const { return params_; }

 private:
  Halide::Pipeline build_generator_pipeline() const;

  GeneratorRef ref_;
  std::map<std::string, std::string> params_;  // generator parameters as given
};

std::unique_ptr<GeneratorSubgraph> load_generator_subgraph(
    const std::string& ref, const std::map<std::string, std::string>& params);

}  // namespace ktune::subgraphs
