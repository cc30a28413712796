// The typing rules of spec ops, without Halide: which ops compute exactly in integers,
// which type an op's output is stored in by default, and whether an integer accumulation
// stays inside i32. docs/spec_format.md states the same rules for users.
//
//   integer_product({kU8, kI8}) == true      // matmul and conv2d accumulate in i32
//   default_storage({kBF16}, kF32) == kBF16  // computed in f32, stored back in bf16
#pragma once

#include <cstdint>
#include <vector>

#include "subgraphs/dtype.h"

namespace ktune::subgraphs {

// True when every input is an 8-bit integer (u8 or i8): matmul, batch_matmul and conv2d
// then multiply and accumulate exactly in i32, as quantized inference does.
bool integer_product(const std::vector<DType>& inputs);

// True when every input is i32: add, sub, max, min, relu, neg and bias_add then compute
// exactly in i32 (an accumulator plus an i32 bias, its ReLU).
bool all_i32(const std::vector<DType>& inputs);

// The type an op's output is stored in unless `out_dtype` says otherwise: i32 for an op
// that computes in i32; the inputs' type when every input is the same half type (f16 or
// bf16), computed in f32 and stored back; f32 otherwise (an 8-bit image blurred into
// floats, mixed inputs).
DType default_storage(const std::vector<DType>& inputs, DType compute);

// The largest magnitude of a value of an integer type (128 for i8, 255 for u8).
int64_t largest_magnitude(DType dtype);

// True when a sum of `terms` products of values of types `a` and `b` cannot overflow i32.
bool accumulation_fits_i32(int64_t terms, DType a, DType b);

// `value` (a whole number) wrapped into i32 the way two's-complement i32 arithmetic wraps
// it: what an i32 add computes when the true sum leaves the range.
double wrap_to_i32(double value);

}  // namespace ktune::subgraphs
