// Reductions over a set of axes: reduce_sum, reduce_mean and reduce_max, with keepdims.
// Reducing every axis without keepdims keeps them as extent-1 axes (ktune has no rank-0
// tensors). The reduction is its own Func (`<name>_acc`) under a pure output stage.
#include <limits>

#include "subgraphs/internal/axis_util.h"
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

enum class ReduceKind { kSum, kMean, kMax };

class ReduceOp : public Op {
 public:
  ReduceOp(ReduceKind kind, const OpCall& call, OpAttributes& attrs) : kind_(kind) {
    in_shape_ = call.input_shapes[0];
    std::vector<int64_t> all(in_shape_.size());
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
    axes_ = attrs.get_axes("axes", all, in_shape_.size());
    keepdims_ = attrs.get_bool("keepdims", false);
    if (axes_.size() == in_shape_.size()) keepdims_ = true;
    count_ = 1;
    for (int64_t a : axes_) count_ *= in_shape_[a];
    if (keepdims_) {
      output_shape_ = in_shape_;
      for (int64_t a : axes_) output_shape_[a] = 1;
    } else {
      output_shape_ = drop_axes(in_shape_, axes_);
    }
  }

  double flops() const override { return static_cast<double>(element_count(in_shape_)); }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    const double init = kind_ == ReduceKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_), init)};
    const Shape kept_shape = drop_axes(in_shape_, axes_);
    for_each_index(in_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      const std::vector<int64_t> kept = kept_part<int64_t>(idx, axes_);
      const int64_t o = flat_index(kept_shape, kept);
      const double v = in[0]->data[flat];
      out.data[o] = kind_ == ReduceKind::kMax ? std::max(out.data[o], v) : out.data[o] + v;
    });
    if (kind_ == ReduceKind::kMean) {
      for (double& v : out.data) v /= static_cast<double>(count_);
    }
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    std::vector<Halide::Range> ranges;
    for (int64_t a : axes_) ranges.emplace_back(0, static_cast<int>(in_shape_[a]));
    Halide::RDom r(ranges, "r");
    std::vector<Expr> rvars;
    for (size_t i = 0; i < axes_.size(); ++i) rvars.push_back(r[static_cast<int>(i)]);
    const std::vector<Halide::Var> v = outer_first_vars(output_shape_.size());
    const std::vector<Expr> out_idx = as_exprs(v);
    const std::vector<Expr> kept = keepdims_ ? kept_part<Expr>(out_idx, axes_) : out_idx;
    const Expr value = x(merge_index<Expr>(kept, axes_, rvars));
    Halide::Func acc(name + "_acc");
    if (kind_ == ReduceKind::kMax) {
      acc(halide_args(v)) = Halide::Float(32).min();
      acc(halide_args(v)) = Halide::max(acc(halide_args(v)), value);
    } else {
      acc(halide_args(v)) = 0.0f;
      acc(halide_args(v)) += value;
    }
    Halide::Func out(name);
    if (kind_ == ReduceKind::kMean) {
      out(halide_args(v)) = acc(halide_args(v)) * (1.0f / static_cast<float>(count_));
    } else {
      out(halide_args(v)) = acc(halide_args(v));
    }
    return HalideValue::of_func(out, output_shape_);
  }

 private:
  ReduceKind kind_;
  Shape in_shape_;              // shape of the input
  std::vector<int64_t> axes_;   // reduced axes, sorted
  bool keepdims_ = false;       // reduced axes stay as extent-1 axes
  int64_t count_ = 1;           // number of elements reduced into each output
};

template <ReduceKind K>
std::unique_ptr<Op> make_reduce(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<ReduceOp>(K, call, attrs);
}

}  // namespace

std::vector<OpDef> reduction_ops() {
  return {
      {"reduce_sum", 1, 1, "sum over axes (default all), keepdims", make_reduce<ReduceKind::kSum>},
      {"reduce_mean", 1, 1, "mean over axes (default all), keepdims", make_reduce<ReduceKind::kMean>},
      {"reduce_max", 1, 1, "max over axes (default all), keepdims", make_reduce<ReduceKind::kMax>},
  };
}

}  // namespace ktune::subgraphs
