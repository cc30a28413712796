#include "cost_model/internal/isl_util.h"

#include <isl/set.h>
#include <isl/val.h>

#include <limits>

namespace ktune::cost_model::internal {
namespace {

std::optional<int64_t> to_int(const isl::val& v) {
  if (v.is_null() || !v.is_int()) return std::nullopt;
  const long n = v.num_si();
  return static_cast<int64_t>(n);
}

}  // namespace

int64_t Box::points() const {
  int64_t n = 1;
  for (int64_t e : extent) n *= e;
  return n;
}

std::optional<int64_t> count_points(const isl::set& set) {
  isl::val v = isl::manage(isl_set_count_val(set.get()));
  if (v.is_null() || !v.is_int()) return std::nullopt;
  // num_si truncates values beyond a long; reject them.
  if (v.gt(isl::val(v.ctx(), std::numeric_limits<long>::max()))) return std::nullopt;
  return to_int(v);
}

std::optional<Box> bounding_box(const isl::set& set) {
  if (set.is_empty()) return std::nullopt;
  const unsigned dims = set.tuple_dim();
  Box box;
  // The simple fixed box hull is cheap and exact for the rectangles most accesses produce.
  const isl::fixed_box hull = set.simple_fixed_box_hull();
  if (hull.is_valid()) {
    const isl::multi_val size = hull.size();
    const isl::multi_aff offset = hull.offset();
    bool ok = true;
    for (unsigned d = 0; d < dims && ok; ++d) {
      const isl::aff a = offset.at(static_cast<int>(d));
      if (!a.is_cst()) {
        ok = false;
        break;
      }
      const auto lo = to_int(a.constant_val());
      const auto n = to_int(size.at(static_cast<int>(d)));
      if (!lo || !n) {
        ok = false;
        break;
      }
      box.lo.push_back(*lo);
      box.extent.push_back(*n);
    }
    if (ok) return box;
    box = Box{};
  }
  // Otherwise solve for the extremes of each dimension.
  for (unsigned d = 0; d < dims; ++d) {
    const auto lo = to_int(set.dim_min_val(static_cast<int>(d)));
    const auto hi = to_int(set.dim_max_val(static_cast<int>(d)));
    if (!lo || !hi) return std::nullopt;
    box.lo.push_back(*lo);
    box.extent.push_back(*hi - *lo + 1);
  }
  return box;
}

}  // namespace ktune::cost_model::internal
