// Index helpers for ops that reduce along axes: a reduced tensor keeps the other axes in
// order, and a full index is rebuilt by inserting the reduction variable.
#pragma once

#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// `shape` without the axes listed in `axes` (sorted).
inline Shape drop_axes(const Shape& shape, const std::vector<int64_t>& axes) {
  Shape out;
  size_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (k < axes.size() && axes[k] == static_cast<int64_t>(d)) {
      ++k;
      continue;
    }
    out.push_back(shape[d]);
  }
  return out;
}

// Splits a full index into the kept part (other axes, in order).
template <typename Index>
std::vector<Index> kept_part(const std::vector<Index>& full, const std::vector<int64_t>& axes) {
  std::vector<Index> out;
  size_t k = 0;
  for (size_t d = 0; d < full.size(); ++d) {
    if (k < axes.size() && axes[k] == static_cast<int64_t>(d)) {
      ++k;
      continue;
    }
    out.push_back(full[d]);
  }
  return out;
}

// Rebuilds a full index from the kept part and one value per reduced axis.
template <typename Index>
std::vector<Index> merge_index(const std::vector<Index>& kept, const std::vector<int64_t>& axes,
                               const std::vector<Index>& reduced) {
  std::vector<Index> out;
  size_t k = 0, r = 0;
  const size_t rank = kept.size() + axes.size();
  for (size_t d = 0; d < rank; ++d) {
    if (r < axes.size() && axes[r] == static_cast<int64_t>(d)) {
      out.push_back(reduced[r++]);
    } else {
      out.push_back(kept[k++]);
    }
  }
  return out;
}

}  // namespace ktune::subgraphs
