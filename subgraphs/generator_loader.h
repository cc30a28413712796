// Loading a user's Halide Generator from a shared library (HALIDE_REGISTER_GENERATOR,
// linked to libHalide, without GenGen) and turning one of its generators into a
// Subgraph. A library is first loaded in a child process, because a library that
// registers an already registered generator name aborts the process that loads it.
//
//   auto sg = load_generator_subgraph("libmy_gens.so:blur", {{"scale", "2"}}, {{"sigma", "1.5"}},
//                                     {{"alpha", {0.1, 1}}});
//
// The generator must set estimates on every output (they give the shapes; inputs are
// sized by what the outputs read) and skip its own schedule when `auto_schedule` is true.
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
  // Loads the library, instantiates the generator with `params` (GeneratorParams) and reads
  // its shapes; scalar inputs take their value from `scalar_values`, else their estimate;
  // input buffers are seeded from `input_ranges`, else the default (input_range.h).
  GeneratorSubgraph(const GeneratorRef& ref, std::map<std::string, std::string> params,
                    const ScalarValues& scalar_values = {}, const InputRanges& input_ranges = {});

  std::string kind() const override { return "generator"; }
  // The same algorithm with the Generator's own schedule (built with auto_schedule false),
  // scalars bound: what the Generator's author ships, for `ktune bench` to compare with.
  BuiltPipeline build_with_own_schedule() const;

  const GeneratorRef& ref() const { return ref_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  // The --input values given (the values used are scalars()).
  const ScalarValues& scalar_values() const { return scalar_values_; }
  // The --input-range values given.
  const InputRanges& given_input_ranges() const { return input_ranges_; }

 private:
  Halide::Pipeline build_generator_pipeline(bool own_schedule = false) const;

  GeneratorRef ref_;
  std::map<std::string, std::string> params_;  // generator parameters as given
  ScalarValues scalar_values_;                 // scalar input values as given
  InputRanges input_ranges_;                   // input buffer ranges as given
};

std::unique_ptr<GeneratorSubgraph> load_generator_subgraph(
    const std::string& ref, const std::map<std::string, std::string>& params,
    const PipelineSubgraph::ScalarValues& scalar_values = {}, const InputRanges& input_ranges = {});

}  // namespace ktune::subgraphs
