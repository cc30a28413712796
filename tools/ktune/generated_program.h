// Source text shared by the C++ programs ktune writes for users to compile beside their
// kernels (export's test_data/check.cc and the bundle runner run.cc): typed buffers of a
// spec shape at their mins, test data files, scalar arguments and ktune's comparison rule,
// so both programs judge outputs exactly as ktune does.
#pragma once

#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::cli {

// C++ defining `make<T>(shape, mins)` (a buffer of an outermost-first shape whose first
// element is at `mins`), `load(buffer, path)` (raw bytes) and `max_error(got, want, kind)`
// (subgraphs/compare.h's error: relative with the 1% floor for kind 'f' (float, double),
// 'h' (f16 bits) and 'b' (bf16 bits), the absolute difference for 'i' (integers); infinity
// for NaN). Expects <algorithm>, <cmath>, <cstdint>, <cstring>, <fstream>, <string>,
// <vector> included and `Buffer` naming Halide::Runtime::Buffer.
const char* generated_buffer_helpers();

// A shape as a C++ initializer list: "{2, 3}".
std::string shape_initializer(const subgraphs::Shape& shape);

// "Buffer<uint16_t> t_in = make<uint16_t>({480, 640}, {-2, -2})" (no semicolon).
std::string buffer_definition(const std::string& var, const subgraphs::TensorInfo& t);

// The `kind` argument of the generated max_error for outputs of `dtype`: 'f', 'h', 'b', 'i'.
char error_kind(subgraphs::DType dtype);

// The name of a tensor's test data file: "<param>.<dtype>" for an input, and
// "<param>.ref.<dtype>" for a reference output ("x.f32", "out.ref.u16").
std::string data_file(const std::string& param, subgraphs::DType dtype, bool reference);

// A scalar's value as a C++ expression of its type: "float(0.25)", "uint8_t(3)", "true".
// f16 and bf16 scalars are not expressible in C and throw ktune::UserError.
std::string scalar_literal(const subgraphs::ScalarInfo& s);

}  // namespace ktune::cli
