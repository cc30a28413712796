// A candidate is one schedule of one subgraph, ready to be built and measured. It carries
// the schedule as a function that schedules a freshly built pipeline, so the measurement
// layer does not depend on how schedules are represented (scheduler/ owns that).
#pragma once

#include <functional>
#include <string>

namespace ktune::subgraphs {
class Subgraph;
struct BuiltPipeline;
}  // namespace ktune::subgraphs

namespace ktune::measure {

struct Candidate {
  // The algorithm to build; not owned, must outlive building and running the candidate.
  const subgraphs::Subgraph* subgraph = nullptr;
  // Identity of the schedule (its hash in the tuning database); breaks timing ties, so
  // distinct schedules of one subgraph should have distinct hashes. May be empty.
  std::string schedule_hash;
  // Schedules the fresh, unscheduled pipeline it is given (Func::compute_root, split,
  // parallel, ...). May throw Halide::CompileError for an illegal schedule. It runs on a
  // builder thread beside other candidates' apply, so it must not touch shared mutable
  // state. Empty means Halide's default schedule (everything inlined into the outputs).
  std::function<void(const subgraphs::BuiltPipeline&)> apply;
  // Readable name for logs and reports ("naive", "mutant 17"); may be empty.
  std::string label;
  // Builds the pipeline in place of subgraph->build(), for a pipeline that arrives already
  // scheduled (a Generator's own schedule); empty means subgraph->build(). It must compute
  // the subgraph's algorithm: the subgraph's reference judges its output.
  std::function<subgraphs::BuiltPipeline()> build = {};
};

}  // namespace ktune::measure
