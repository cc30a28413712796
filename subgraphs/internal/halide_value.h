// A tensor value while a spec is turned into a Halide algorithm: either a pipeline
// input (an ImageParam) or a Func defined by an op, plus its shape. Indices are given
// outermost first (NumPy order); Halide's own argument order is innermost first, so the
// last axis is Halide dimension 0 and memory is row-major.
#pragma once

#include <Halide.h>

#include <functional>
#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

class HalideValue {
 public:
  static HalideValue of_input(Halide::ImageParam param, Shape shape, DType dtype);
  static HalideValue of_func(Halide::Func func, Shape shape, DType dtype = DType::kF32);

  // The element at `outer_first` (one Expr per axis, outermost first) as f32, the type
  // float ops compute in: a value stored in another type is converted where it is read.
  Halide::Expr operator()(const std::vector<Halide::Expr>& outer_first) const;
  // The element in the type it is stored in (for ops that compute in integers).
  Halide::Expr raw(const std::vector<Halide::Expr>& outer_first) const;
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  // The Func for op outputs; undefined for inputs.
  const Halide::Func& func() const { return func_; }

 private:
  Halide::Func func_;
  Halide::ImageParam param_;
  bool is_input_ = false;
  Shape shape_;
  DType dtype_ = DType::kF32;
};

// `value` converted to `dtype` the way round_to (subgraphs/dtype.h) converts: floats
// rounded to nearest even, floats to integers rounded to nearest even and saturated,
// integers to narrower integers saturated.
Halide::Expr convert_to(DType dtype, const Halide::Expr& value);

// The pure Vars of a rank-`rank` Func, outermost first: rank 2 gives {y, x}.
std::vector<Halide::Var> outer_first_vars(size_t rank);

// Converts outer-first Vars to Exprs.
std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var>& vars);

// Defines `func(vars) = body(vars outer first)` with vars from outer_first_vars.
Halide::Func define_func(const std::string& name, size_t rank,
                         const std::function<Halide::Expr(const std::vector<Halide::Expr>&)>& body);

// Halide's argument list (innermost first) for outer-first vars.
std::vector<Halide::Var> halide_args(const std::vector<Halide::Var>& outer_first);

}  // namespace ktune::subgraphs
