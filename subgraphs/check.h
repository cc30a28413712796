// `ktune show --check`: builds a subgraph with the trivial schedule (everything at root,
// serial), runs it on the seeded inputs and compares it with the reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "subgraphs/compare.h"
#include "subgraphs/subgraph.h"

namespace ktune::subgraphs {

struct CheckResult {
  Comparison comparison;    // outputs against the reference
  double compile_ms = 0;    // JIT compilation of the trivially scheduled pipeline
  double run_ms = 0;        // one run of it
  double reference_ms = 0;  // the reference computation
  std::string plan;         // how the pipeline was computed (ReferencePlan::describe): "trivial" or what changed
  std::string error;        // Halide's message if building or running failed; empty otherwise
  bool passed() const { return error.empty() && comparison.passed(); }
};

// Never throws for Halide failures: they are reported in CheckResult::error.
CheckResult check_subgraph(const Subgraph& subgraph, uint64_t seed);

// check_subgraph in a forked child, so that a pipeline that crashes or hangs (a user's
// Generator indexing out of range) is a failed check with the reason, not the end of the
// calling process; `timeout_ms` bounds the whole check.
CheckResult check_subgraph_isolated(const Subgraph& subgraph, uint64_t seed, double timeout_ms);

// Runs `check` in a forked child and returns what it found (or why the child failed).
CheckResult check_isolated(const std::function<CheckResult()>& check, double timeout_ms);

}  // namespace ktune::subgraphs
