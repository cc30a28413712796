// Source text shared by the C++ programs ktune writes for users to compile beside their
// kernels (export's test_data/check.cc and the bundle runner run.cc): buffers of a spec
// shape and ktune's comparison rule, so both programs judge outputs exactly as ktune does.
#pragma once

#include <string>

#include "subgraphs/tensor.h"

namespace ktune::cli {

// C++ defining `make(shape)` (a float buffer of an outermost-first shape) and
// `max_error(got, want)` (subgraphs/compare.h's relative error; infinity for NaN). Expects
// <algorithm>, <cmath>, <vector> included and `Buffer` naming Halide::Runtime::Buffer.
const char* generated_buffer_helpers();

// A shape as a C++ initializer list: "{2, 3}".
std::string shape_initializer(const subgraphs::Shape& shape);

}  // namespace ktune::cli
