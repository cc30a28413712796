// Comparing kernel outputs with the reference, with a rule per output type.
//
// Floats are compared relative to the output's scale, not to each element: rounding error
// follows the magnitude of the terms an element is computed from, and an element that
// cancels to nearly zero, or divides by a nearly zero value (a pyramid normalized by its
// alpha), carries the error of those terms. So
//   err_i = |out_i - ref_i| / max_j |ref_j|
// must stay within the tolerance for every element. f32 and f64 pass at 1e-3 (kTolerance):
// a K-term float sum has rounding error around sqrt(K) * 2^-24 of its partial-sum magnitude
// (about 4e-6 for K = 4096), and the exp and sqrt approximations Halide emits are accurate
// to a few ulp. f16 passes at 1e-2: storing a result in f16 alone rounds it by up to 2^-11
// (4.9e-4) relative, so two schedules whose f32 intermediates differ in the last bits can
// store neighbouring f16 values 2^-10 (9.8e-4) apart, and a short chain of f16 stages
// (each rounding again) stays within ten such steps. bf16 (8 significant bits, one step
// 2^-7 = 7.8e-3) passes at 4e-2 by the same reasoning (five steps).
// The output's largest value alone would let a few huge elements hide a wrong region of
// small ones, so a second rule bounds how many elements may be far from both their own
// value and the output's typical value (its 99th percentile of |ref|; 1% of the largest
// where that is 0): |out_i - ref_i| > tol * max(|ref_i|, typical). Such ill-conditioned elements
// pass up to 1 in 1000 (kRareElementsPerAllowed); a wrong tile, row or boundary moves far
// more, by the size of the values themselves.
// Integers and bools: exact (err_i = |out_i - ref_i|, tolerance 0): integer arithmetic
// does not depend on the schedule. Except for integers computed through floating-point
// arithmetic (TensorInfo::rounded_from_float: a u16 image computed in f32 and cast back):
// Halide lets LLVM reassociate and contract float arithmetic (fused multiply-adds), so two
// correct schedules can round a value that lies within an ulp of a rounding boundary to
// neighbouring integers. How often depends on how much the pipeline amplifies its float
// error before the cast: 1 element of 196,608 in a u16 denoise, 0.32% of a local-Laplacian
// filter's elements (a colour ratio that amplifies up to 100x). Such an output passes when
// no element is off by more than 1 and at most 1 in 100 are off by 1 (kFlipsPerAllowed); a
// wrong schedule is off by far more, or in far more places. A value that picks a table
// entry by truncating a float (a LUT indexed by cast<int>(f)) can pick the neighbouring
// entry the same way, and then differ by a whole table step (hundreds in the local
// Laplacian's u16 output): that is not tolerated, because it cannot be told from a wrong
// index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// The f32 tolerance (see above).
inline constexpr double kTolerance = 1e-3;
// One ill-conditioned float element is allowed per this many elements of an output.
inline constexpr int64_t kRareElementsPerAllowed = 1000;
// One off-by-1 element of an integer output computed through floats per this many.
inline constexpr int64_t kFlipsPerAllowed = 100;

// The tolerance of an output of type `dtype`: 0 for integers and bools.
double tolerance_of(DType dtype);

struct Comparison {
  double max_error = 0;      // largest err_i of the worst output (infinity for NaN or a shape mismatch)
  size_t worst_output = 0;   // the worst output: one that fails, else the one with the largest error
  int64_t worst_index = -1;  // flat index of its worst element, -1 if none
  double got = 0, want = 0;  // the values at the worst element
  double tolerance = kTolerance;  // the worst output's tolerance (1 for integers through floats)
  double scale = 0;          // floats: the worst output's largest |ref|, the unit of err_i
  double typical_scale = 0;  // floats: its typical |ref| (see above)
  int64_t mismatches = 0;    // elements beyond their output's tolerance, over every output
  // Elements off by exactly 1 (integers through floats) or ill-conditioned (floats), over
  // every output, and how many the outputs allow.
  int64_t rare_elements = 0;
  int64_t allowed_rare = 0;
  size_t rare_output = 0;    // the first such element of the worst output, and its values
  int64_t rare_index = -1;
  double rare_got = 0, rare_want = 0;
  bool passed() const { return mismatches == 0 && rare_elements <= allowed_rare && max_error <= tolerance; }
  std::string describe() const;  // "max relative error 3.1e-07 of ..." or where it went wrong
};

// `infos` (optional, one per output) says which integer outputs are rounded_from_float.
Comparison compare_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                           const std::vector<TensorInfo>& infos = {});

}  // namespace ktune::subgraphs
