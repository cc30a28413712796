// The mutator weight table, per target kind: all the weights, reviewed in one place.
#include "scheduler/mutators/mutator.h"

namespace ktune::scheduler {

std::vector<WeightedMutator> default_mutators(targets::DeviceKind target_kind) {
  if (target_kind == targets::DeviceKind::kCuda) {
    // CUDA: thread-block shapes (tile sizes) and what is staged in shared memory decide
    // most of the performance; unrolling the serial reduction pieces refines; a starved
    // reduction gains its parallelism from a GPU rfactor (nothing to do for the other
    // stages). The CPU decisions (vector width, parallel loops, CPU rfactor) do not apply;
    // loop order and compute locations are kept as the GPU templates build them.
    return {
        {make_tile_size_mutator(), 4.0},
        {make_gpu_staging_mutator(), 2.0},
        {make_unroll_mutator(), 1.0},
        {make_gpu_rfactor_mutator(), 1.0},
    };
  }
  // CPU: tile sizes and compute locations decide most of the performance; loop order,
  // vector width, unrolling and parallel granularity refine; rfactor and packed inputs
  // are rarely needed, and decisive where they are (a row reduction, a transposed operand);
  // so are vectorized reductions (the dot products of 8-bit and bf16 products) and storage
  // orders (an accumulator vectorized along a variable its definition does not store innermost);
  // sliding windows decide an image pipeline's traffic as much as compute locations do;
  // siblings sharing a loop nest (compute_with) refine a strip.
  return {
      {make_tile_size_mutator(), 4.0},
      {make_compute_location_mutator(), 2.0},
      {make_inline_mutator(), 1.0},
      {make_vector_width_mutator(), 1.0},
      {make_unroll_mutator(), 1.0},
      {make_parallel_mutator(), 1.0},
      {make_loop_order_mutator(), 1.5},
      {make_rfactor_mutator(), 0.5},
      {make_pack_mutator(), 0.5},
      {make_tail_mutator(), 0.5},
      {make_vector_reduce_mutator(), 0.5},
      {make_storage_mutator(), 0.3},
      {make_window_mutator(), 1.0},
      {make_compute_with_mutator(), 0.3},
  };
}

}  // namespace ktune::scheduler
