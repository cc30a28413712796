// What the Runner prepares once per subgraph and every child reuses: the seeded inputs as
// 128-byte-aligned Halide buffers and the reference outputs. The reference is computed in
// a child process, because a Generator's reference runs a Halide pipeline and the parent
// must never run one.
#pragma once

#include <Halide.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subgraphs/subgraph.h"

namespace ktune::measure {

struct WorkloadData {
  // Seeded inputs in Subgraph::inputs() order, of their types, at their mins, in Halide
  // dimension order (innermost first).
  std::vector<Halide::Buffer<>> inputs;
  // Reference outputs in Subgraph::outputs() order; empty when reference_error is set.
  std::vector<subgraphs::Tensor> reference;
  // Why the reference could not be computed (a crash, a timeout, an exception); empty
  // when it was.
  std::string reference_error;
  // Wall time of computing the reference in its child, in milliseconds.
  double reference_ms = 0;
};

// Makes the inputs for `seed` in this process and the reference in a child that may run
// for `reference_timeout_ms`. Never throws for a failing reference: see reference_error.
std::shared_ptr<WorkloadData> prepare_workload(const subgraphs::Subgraph& subgraph, uint64_t seed,
                                               double reference_timeout_ms);

}  // namespace ktune::measure
