// Comparing kernel outputs with the reference, with a rule per output type.
//
// Floats: the error of one element is relative to the reference value, with the
// denominator floored at 1% of the output's largest magnitude so that elements that cancel
// to nearly zero do not dominate:
//   err_i = |out_i - ref_i| / max(|ref_i|, 0.01 * max_j |ref_j|)
// f32 and f64 pass at 1e-3 (kTolerance): a K-term float sum has rounding error around
// sqrt(K) * 2^-24 of its partial-sum magnitude (about 4e-6 for K = 4096), partial sums stay
// within 100x of the 1% floor, and the exp and sqrt approximations Halide emits are
// accurate to a few ulp. f16 passes at 1e-2: storing a result in f16 alone rounds it by up
// to 2^-11 (4.9e-4) relative, so two schedules whose f32 intermediates differ in the last
// bits can store neighbouring f16 values 2^-10 (9.8e-4) apart, and a short chain of f16
// stages (each rounding again) stays within ten such steps. bf16 (8 significant bits,
// one step 2^-7 = 7.8e-3) passes at 4e-2 by the same reasoning (five steps).
// Integers and bools: exact (err_i = |out_i - ref_i|, tolerance 0): integer arithmetic
// does not depend on the schedule. Except for integers computed through floating-point
// arithmetic (TensorInfo::rounded_from_float: a u16 image computed in f32 and cast back):
// Halide lets LLVM reassociate and contract float arithmetic (fused multiply-adds), so two
// correct schedules can round a value that lies within an ulp of a rounding boundary to
// neighbouring integers. Measured on a u16 pipeline: 80 of 346 correct schedules had one
// element of 196,608 off by one. Such an output passes when no element is off by more
// than 1 and at most 1 in 1000 are off by 1; a wrong schedule is off by far more, or in
// far more places.
// A wrong schedule (a missed tile, a race, a wrong boundary) produces errors of order 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// The f32 tolerance (see above).
inline constexpr double kTolerance = 1e-3;

// The tolerance of an output of type `dtype`: 0 for integers and bools.
double tolerance_of(DType dtype);

struct Comparison {
  double max_error = 0;      // largest err_i of the worst output (infinity for NaN or a shape mismatch)
  size_t worst_output = 0;   // the worst output: one that fails, else the one with the largest error
  int64_t worst_index = -1;  // flat index of its worst element, -1 if none
  double got = 0, want = 0;  // the values at the worst element
  double tolerance = kTolerance;  // the worst output's tolerance
  int64_t mismatches = 0;    // elements beyond their output's tolerance, over every output
  int64_t rounding_flips = 0;  // elements of rounded_from_float outputs off by exactly 1
  int64_t allowed_flips = 0;   // how many of those the outputs allow (1 in 1000 elements each)
  bool passed() const { return mismatches == 0 && rounding_flips <= allowed_flips && max_error <= tolerance; }
  std::string describe() const;  // "max relative error 3.1e-07" or where it went wrong
};

// `infos` (optional, one per output) says which integer outputs are rounded_from_float.
Comparison compare_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                           const std::vector<TensorInfo>& infos = {});

}  // namespace ktune::subgraphs
