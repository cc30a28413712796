// Plain tensors that cross library boundaries without Halide: the element type, shape and
// position of a subgraph's inputs and outputs, typed data for inputs and outputs, and the
// double-precision tensors the schedule-independent references compute with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "subgraphs/dtype.h"

namespace ktune::subgraphs {

// Extents of a row-major tensor, outermost first (NumPy order). Every extent is >= 1.
using Shape = std::vector<int64_t>;

// Number of elements of `shape` (1 for a rank-0 shape).
int64_t element_count(const Shape& shape);

// "[512, 768]".
std::string shape_to_string(const Shape& shape);

// Row-major strides of `shape`, in elements.
std::vector<int64_t> row_major_strides(const Shape& shape);

// Name, element type, shape and position of one input or output of a subgraph.
struct TensorInfo {
  std::string name;  // identifier as written in the spec (or the Generator's parameter name)
  DType dtype = DType::kF32;
  Shape shape;  // outermost first; memory is row-major (last axis contiguous)
  // Coordinate of the first element along each axis, outermost first; empty means all 0.
  // A Generator whose output estimates start at 2 has outputs at 2; its inputs start
  // where bounds inference says the outputs first read them.
  std::vector<int64_t> mins;
  // An integer output computed through floating-point arithmetic (a u16 image filtered in
  // f32): schedules may round it differently by 1 in rare places (subgraphs/compare.h).
  bool rounded_from_float = false;
  // mins, or zeros when mins is empty.
  std::vector<int64_t> mins_or_zero() const;
  // True when every min is 0.
  bool at_origin() const;
  // Bytes of the whole tensor.
  int64_t byte_count() const;
};

// A scalar input of a subgraph (a Generator's Input<float>, Input<int>, Input<bool>), and
// the value ktune runs it at: given with --input, or else the Generator's estimate.
struct ScalarInfo {
  std::string name;
  DType dtype = DType::kF32;
  double value = 0;
};

// A dense row-major tensor of any DType: inputs handed to kernels, outputs read back.
struct Tensor {
  Shape shape;                 // outermost first
  DType dtype = DType::kF32;
  std::vector<uint8_t> bytes;  // element_count(shape) * bytes_of(dtype), native byte order

  Tensor() = default;
  // Zeros of `dtype`.
  Tensor(Shape s, DType d);
  // A float32 tensor holding `values` (element_count(s) of them).
  Tensor(Shape s, const std::vector<float>& values);

  // Number of elements.
  size_t size() const { return bytes.size() / static_cast<size_t>(bytes_of(dtype)); }
  // Element `i` (row-major) as a double, and stored from a double (converted by round_to).
  double at(size_t i) const;
  void set(size_t i, double value);
  // The elements of a float32 tensor (checked).
  float* f32();
  const float* f32() const;
  // The elements of a float32 tensor as a vector (checked).
  std::vector<float> floats() const;
};

// The part of `t` (whose elements sit at `t_info`'s mins) that `region` covers, as a tensor of
// `region`'s shape; `region` must lie inside `t_info`'s (an invariant failure otherwise).
Tensor crop_tensor(const Tensor& t, const TensorInfo& t_info, const TensorInfo& region);

// True when `inner`'s region lies inside `outer`'s.
bool region_inside(const TensorInfo& inner, const TensorInfo& outer);

// A dense row-major tensor of doubles, used by the references (double accumulation).
struct RefTensor {
  Shape shape;               // outermost first
  std::vector<double> data;  // element_count(shape) values, row-major
};

// Deterministic pseudo-random values uniform in [lo, hi), identical on every machine
// for the same seed (no dependence on the standard library's distributions). Integer
// types draw whole numbers uniformly from [ceil(lo), floor(hi)] clipped to the type's
// range; float types store the uniform value rounded to the type.
Tensor random_tensor(const Shape& shape, uint64_t seed, double lo = -1.0, double hi = 1.0,
                     DType dtype = DType::kF32);

// The range a seeded input of `dtype` is drawn from by default: [-1, 1) for floats, the
// type's whole range for integers ({0, 1} for bool).
std::pair<double, double> default_input_range(DType dtype);

// Converts between the tensors kernels use and the references' doubles; to_typed rounds
// each value to `dtype` as a kernel storing it would (round_to).
RefTensor to_ref(const Tensor& t);
Tensor to_typed(const RefTensor& t, DType dtype);

}  // namespace ktune::subgraphs
