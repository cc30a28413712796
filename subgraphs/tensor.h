// Plain tensors that cross library boundaries without Halide: the shape and element
// type of a subgraph's inputs and outputs, float data for inputs and outputs, and the
// double-precision tensors the schedule-independent references compute with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune::subgraphs {

// Element types a spec may use. Only f32 is supported for now.
enum class DType { kF32 };

// "f32" for DType::kF32.
std::string to_string(DType dtype);

// Extents of a row-major tensor, outermost first (NumPy order). Every extent is >= 1.
using Shape = std::vector<int64_t>;

// Number of elements of `shape` (1 for a rank-0 shape).
int64_t element_count(const Shape& shape);

// "[512, 768]".
std::string shape_to_string(const Shape& shape);

// Row-major strides of `shape`, in elements.
std::vector<int64_t> row_major_strides(const Shape& shape);

// Name, element type and shape of one input or output of a subgraph.
struct TensorInfo {
  std::string name;  // identifier as written in the spec (or the Generator's parameter name)
  DType dtype = DType::kF32;
  Shape shape;  // outermost first; memory is row-major (last axis contiguous)
};

// A dense row-major tensor of float32: inputs handed to kernels, outputs read back.
struct Tensor {
  Shape shape;              // outermost first
  std::vector<float> data;  // element_count(shape) values, row-major
};

// A dense row-major tensor of doubles, used by the references (double accumulation).
struct RefTensor {
  Shape shape;               // outermost first
  std::vector<double> data;  // element_count(shape) values, row-major
};

// Deterministic pseudo-random values uniform in [lo, hi), identical on every machine
// for the same seed (no dependence on the standard library's distributions).
Tensor random_tensor(const Shape& shape, uint64_t seed, double lo = -1.0, double hi = 1.0);

// Converts between the float tensors kernels use and the references' doubles.
RefTensor to_ref(const Tensor& t);
Tensor to_float(const RefTensor& t);

}  // namespace ktune::subgraphs
