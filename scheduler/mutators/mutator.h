// A Mutator changes one decision of a schedule to a different legal value, or returns
// nothing when it has nothing to change. Each lives in its own file
// (scheduler/mutators/mutate_<what>.cc); default_mutators.cc holds the weights.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "scheduler/rng.h"
#include "scheduler/schedule.h"
#include "targets/device.h"

namespace ktune::scheduler {

class Space;

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual std::string_view name() const = 0;
  // One changed decision, not yet validated; nullopt when there is nothing to change.
  virtual std::optional<Schedule> propose(const Schedule& schedule, const Space& space, Rng& rng) const = 0;
  // A schedule that differs from `schedule` and passes every validator, or nullopt.
  std::optional<Schedule> mutate(const Schedule& schedule, const Space& space, Rng& rng) const;
};

struct WeightedMutator {
  std::shared_ptr<const Mutator> mutator;
  double weight = 1.0;  // relative probability of being drawn
};

std::unique_ptr<Mutator> make_tile_size_mutator();         // change one split factor
std::unique_ptr<Mutator> make_compute_location_mutator();  // root <-> at, or another loop
std::unique_ptr<Mutator> make_inline_mutator();            // inline <-> root for pure Funcs
std::unique_ptr<Mutator> make_vector_width_mutator();      // another width, or vectorize on/off
std::unique_ptr<Mutator> make_unroll_mutator();            // unroll a small inner loop, or stop
std::unique_ptr<Mutator> make_parallel_mutator();          // more or fewer fused parallel loops
std::unique_ptr<Mutator> make_loop_order_mutator();        // swap two adjacent loops
std::unique_ptr<Mutator> make_rfactor_mutator();           // split a reduction with rfactor, or undo it
std::unique_ptr<Mutator> make_pack_mutator();              // pack an input (transposed, or per loop), move, reorder or drop it
std::unique_ptr<Mutator> make_tail_mutator();              // another tail strategy for a split of a pure loop
std::unique_ptr<Mutator> make_vector_reduce_mutator();     // vectorize a reduction piece of 2 or 4 (dot products), or stop
std::unique_ptr<Mutator> make_storage_mutator();           // another pure variable innermost in a Func's buffer, or none
std::unique_ptr<Mutator> make_window_mutator();        // a Func slides a window or stops; the pipeline into strips
std::unique_ptr<Mutator> make_compute_with_mutator();      // a Func joins a sibling's loop nest, or leaves it
std::unique_ptr<Mutator> make_gpu_staging_mutator();       // CUDA: kernel <-> shared-memory staging at a block
std::unique_ptr<Mutator> make_gpu_rfactor_mutator();       // CUDA: split a starved reduction with rfactor, reshape or undo it

// The weight table for a target kind.
std::vector<WeightedMutator> default_mutators(targets::DeviceKind target_kind);

}  // namespace ktune::scheduler
