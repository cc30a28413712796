// A Validator rejects schedules that Halide would refuse, that would fail at run time, or
// that would race, and says why. Each validator lives in its own file; the Space runs
// them all and counts rejections per validator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

class Validator {
 public:
  virtual ~Validator() = default;
  virtual std::string_view name() const = 0;
  // The reason for rejecting `schedule`, or nullopt when it passes this check.
  virtual std::optional<std::string> check(const Schedule& schedule, const Analysis& analysis) const = 0;
};

std::unique_ptr<Validator> make_structure_validator();         // names, splits, orders, every Func listed once
std::unique_ptr<Validator> make_compute_location_validator();  // inline/root/at legality
std::unique_ptr<Validator> make_store_location_validator();    // sliding windows: store loops around compute loops
std::unique_ptr<Validator> make_compute_with_validator();       // siblings sharing a loop nest
std::unique_ptr<Validator> make_vector_width_validator();      // widths Halide can honour at run time
std::unique_ptr<Validator> make_dependence_validator();        // no race: parallel/vector loops carry no dependence
std::unique_ptr<Validator> make_rfactor_validator();           // rfactor only on associative reductions
std::unique_ptr<Validator> make_unroll_validator();            // bounded code growth
std::unique_ptr<Validator> make_inline_expansion_validator();  // bounded code from inlining
std::unique_ptr<Validator> make_target_validator();            // GPU mappings only on GPU targets
std::unique_ptr<Validator> make_gpu_mapping_validator();       // CUDA: kernels map blocks and threads
std::unique_ptr<Validator> make_gpu_limits_validator();        // CUDA: threads, shared memory, registers
std::unique_ptr<Validator> make_pack_validator();             // input packs: permutations at legal locations
std::unique_ptr<Validator> make_vector_reduce_validator();    // dot-product reductions: associative, 2 or 4, innermost
std::unique_ptr<Validator> make_storage_validator();          // storage orders: permutations of a non-output buffer
std::unique_ptr<Validator> make_buffer_size_validator();      // buffers Halide can allocate: bounded, 2 GB at most

// Every validator, structure first (the others assume it passed).
std::vector<std::unique_ptr<Validator>> default_validators();

}  // namespace ktune::scheduler
