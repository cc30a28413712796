// Comparing kernel outputs with the reference. The error of one element is relative to
// the reference value, with the denominator floored at 1% of the output's largest
// magnitude so that elements that cancel to nearly zero do not dominate:
//   err_i = |out_i - ref_i| / max(|ref_i|, 0.01 * max_j |ref_j|)
// kTolerance (1e-3) covers float32 arithmetic in any evaluation order: a K-term float
// sum has rounding error around sqrt(K) * 2^-24 of its partial-sum magnitude (about
// 4e-6 for K = 4096), partial sums stay within 100x of the 1% floor, and the exp and
// sqrt approximations Halide emits are accurate to a few ulp. A wrong schedule (a missed
// tile, a race, a wrong boundary) produces errors of order 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

inline constexpr double kTolerance = 1e-3;

struct Comparison {
  double max_error = 0;     // largest err_i over all outputs (infinity for NaN or a shape mismatch)
  size_t worst_output = 0;  // output holding the largest error
  int64_t worst_index = -1; // flat index of that element, -1 if none
  double got = 0, want = 0; // the values at the worst element
  bool passed() const { return max_error <= kTolerance; }
  std::string describe() const;  // "max relative error 3.1e-07" or where it went wrong
};

Comparison compare_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want);

}  // namespace ktune::subgraphs
