// The few isl computations feature extraction needs that the C++ bindings do not export
// (exact point counts) or that need care (bounding boxes of sets that are not boxes).
// The only place in cost_model that drops to isl's C API, so that manual reference
// counting stays in one file.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace ktune::cost_model::internal {

// Smallest index and number of indices per dimension of a set's bounding box.
struct Box {
  std::vector<int64_t> lo;      // per dimension
  std::vector<int64_t> extent;  // per dimension, >= 1
  int64_t points() const;       // product of `extent`
};

// Exact number of integer points of a bounded set (isl_set_count_val); nullopt when the
// set is unbounded or the count does not fit in 63 bits.
std::optional<int64_t> count_points(const isl::set& set);

// The bounding box of a non-empty bounded set; nullopt when it is empty or unbounded.
std::optional<Box> bounding_box(const isl::set& set);

}  // namespace ktune::cost_model::internal
