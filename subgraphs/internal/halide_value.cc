#include "subgraphs/internal/halide_value.h"

#include "common/check.h"
#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {

HalideValue HalideValue::of_input(Halide::ImageParam param, Shape shape, DType dtype) {
  HalideValue v;
  v.param_ = std::move(param);
  v.is_input_ = true;
  v.shape_ = std::move(shape);
  v.dtype_ = dtype;
  return v;
}

HalideValue HalideValue::of_func(Halide::Func func, Shape shape, DType dtype) {
  HalideValue v;
  v.func_ = std::move(func);
  v.shape_ = std::move(shape);
  v.dtype_ = dtype;
  return v;
}

Halide::Expr HalideValue::raw(const std::vector<Halide::Expr>& outer_first) const {
  KTUNE_CHECK(outer_first.size() == shape_.size())
      << "indexing a rank " << shape_.size() << " value with " << outer_first.size() << " indices";
  std::vector<Halide::Expr> args(outer_first.rbegin(), outer_first.rend());
  if (is_input_) return param_(args);
  return func_(args);
}

Halide::Expr HalideValue::operator()(const std::vector<Halide::Expr>& outer_first) const {
  const Halide::Expr value = raw(outer_first);
  return dtype_ == DType::kF32 ? value : Halide::cast<float>(value);
}

Halide::Expr convert_to(DType dtype, const Halide::Expr& value) {
  const Halide::Type type = halide_type_of(dtype);
  if (value.type() == type) return value;
  if (dtype == DType::kBool) return value != Halide::cast(value.type(), 0);
  if (is_float(dtype)) return Halide::cast(type, value);
  if (value.type().is_float()) return Halide::saturating_cast(type, Halide::round(value));
  return Halide::saturating_cast(type, value);
}

std::vector<Halide::Var> outer_first_vars(size_t rank) {
  // Innermost first: x, y, z; rank-4 tensors are images in NCHW/NHWC style (x, y, c, n).
  static const char* kNames[] = {"x", "y", "z", "w", "v", "u", "t", "s"};
  static const char* kRank4[] = {"x", "y", "c", "n"};
  KTUNE_CHECK(rank <= 8) << "rank " << rank << " is above the supported 8";
  std::vector<Halide::Var> vars;
  for (size_t i = 0; i < rank; ++i) {
    const size_t inner = rank - 1 - i;
    vars.emplace_back(rank == 4 ? kRank4[inner] : kNames[inner]);
  }
  return vars;
}

std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var>& vars) {
  return std::vector<Halide::Expr>(vars.begin(), vars.end());
}

std::vector<Halide::Var> halide_args(const std::vector<Halide::Var>& outer_first) {
  return std::vector<Halide::Var>(outer_first.rbegin(), outer_first.rend());
}

Halide::Func define_func(const std::string& name, size_t rank,
                         const std::function<Halide::Expr(const std::vector<Halide::Expr>&)>& body) {
  Halide::Func f(name);
  const std::vector<Halide::Var> vars = outer_first_vars(rank);
  f(halide_args(vars)) = body(as_exprs(vars));
  return f;
}

}  // namespace ktune::subgraphs
