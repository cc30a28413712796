// Where a Generator's own schedule runs in the program the Generator ships. A hand schedule
// may bound its outputs to whole tiles of their buffers (`processed.bound(y, 0,
// (processed.height() / 32) * 32)`); RunGen then computes that region, not the estimate. The
// `hand` method of `ktune bench` runs there too, against a reference of the same region.
#pragma once

#include <memory>
#include <string>

#include "subgraphs/generator_loader.h"

namespace ktune::bench {

struct OwnScheduleWorkload {
  // The Generator's algorithm with every output at the region the own schedule's bound()
  // calls give it; null when they leave the outputs as `gen` has them.
  std::unique_ptr<subgraphs::Subgraph> subgraph;
  // "output 288x500 at (1, 1) (the workload: 300x500 at (1, 1))" for each output that moved.
  std::string moved;
};

// The workload of `gen`'s own schedule (built with auto_schedule false).
OwnScheduleWorkload own_schedule_workload(const subgraphs::GeneratorSubgraph& gen);

}  // namespace ktune::bench
