// Normalizations along one axis: softmax (max-subtracted), layernorm (two-pass mean and
// variance, optional gamma and beta) and rmsnorm (optional gamma). Row statistics are
// their own Funcs (`<name>_max`, `<name>_mean`, ...) so a schedule can place them.
#include <cmath>
#include <limits>

#include "subgraphs/internal/axis_util.h"
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

enum class NormKind { kSoftmax, kLayerNorm, kRmsNorm };

class NormOp : public Op {
 public:
  NormOp(NormKind kind, const OpCall& call, OpAttributes& attrs) : kind_(kind) {
    output_shape_ = call.input_shapes[0];
    axis_ = attrs.get_axis("axis", -1, output_shape_.size());
    if (kind != NormKind::kSoftmax) eps_ = attrs.get_double("eps", 1e-5);
    if (kind == NormKind::kSoftmax && call.input_shapes.size() > 1) {
      attrs.fail("inputs", "softmax takes one input");
    }
    const int64_t d = output_shape_[axis_];
    for (size_t i = 1; i < call.input_shapes.size(); ++i) {
      const Shape& p = call.input_shapes[i];
      if (p.size() != 1 || p[0] != d) {
        attrs.fail("inputs", std::string(i == 1 ? "gamma" : "beta") + " of shape " +
                                 shape_to_string(p) + " does not match axis " +
                                 std::to_string(axis_) + " of input " +
                                 shape_to_string(output_shape_) + " (expected [" +
                                 std::to_string(d) + "])");
      }
    }
    has_gamma_ = call.input_shapes.size() > 1;
    has_beta_ = call.input_shapes.size() > 2;
  }

  double flops() const override {
    static const double kPerElement[] = {5, 8, 4};
    return kPerElement[static_cast<int>(kind_)] * static_cast<double>(element_count(output_shape_));
  }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    const RefTensor& x = *in[0];
    RefTensor out{output_shape_, std::vector<double>(x.data.size())};
    const int64_t d = output_shape_[axis_];
    const int64_t inner = row_major_strides(output_shape_)[axis_];
    const int64_t outer = element_count(output_shape_) / (d * inner);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t k) { return (o * d + k) * inner + i; };
        if (kind_ == NormKind::kSoftmax) {
          double mx = -std::numeric_limits<double>::infinity(), sum = 0;
          for (int64_t k = 0; k < d; ++k) mx = std::max(mx, x.data[at(k)]);
          for (int64_t k = 0; k < d; ++k) sum += std::exp(x.data[at(k)] - mx);
          for (int64_t k = 0; k < d; ++k) out.data[at(k)] = std::exp(x.data[at(k)] - mx) / sum;
          continue;
        }
        double mean = 0, second = 0;
        if (kind_ == NormKind::kLayerNorm) {
          for (int64_t k = 0; k < d; ++k) mean += x.data[at(k)];
          mean /= d;
        }
        for (int64_t k = 0; k < d; ++k) second += (x.data[at(k)] - mean) * (x.data[at(k)] - mean);
        const double inv = 1.0 / std::sqrt(second / d + eps_);
        for (int64_t k = 0; k < d; ++k) {
          double v = (x.data[at(k)] - mean) * inv;
          if (has_gamma_) v *= in[1]->data[k];
          if (has_beta_) v += in[2]->data[k];
          out.data[at(k)] = v;
        }
      }
    }
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    const std::vector<int64_t> axes = {axis_};
    const Shape row_shape = drop_axes(output_shape_, axes);
    const int d = static_cast<int>(output_shape_[axis_]);
    Halide::RDom k(0, d, "k");
    const std::vector<Halide::Var> rv = outer_first_vars(row_shape.size());
    const std::vector<Expr> row = as_exprs(rv);
    auto x_at_k = [&](const HalideValue& t) { return t(merge_index<Expr>(row, axes, {k.x})); };
    const std::vector<Halide::Var> fv = outer_first_vars(output_shape_.size());
    const std::vector<Expr> full = as_exprs(fv);
    const std::vector<Expr> full_row = kept_part<Expr>(full, axes);
    Halide::Func out(name);

    if (kind_ == NormKind::kSoftmax) {
      Halide::Func mx(name + "_max"), sum(name + "_sum");
      mx(halide_args(rv)) = Halide::Float(32).min();
      mx(halide_args(rv)) = Halide::max(mx(halide_args(rv)), x_at_k(x));
      const HalideValue mxv = HalideValue::of_func(mx, row_shape);
      Halide::Func e = define_func(name + "_exp", output_shape_.size(), [&](const std::vector<Expr>& i) {
        return Halide::exp(x(i) - mxv(kept_part<Expr>(i, axes)));
      });
      const HalideValue ev = HalideValue::of_func(e, output_shape_);
      sum(halide_args(rv)) = 0.0f;
      sum(halide_args(rv)) += x_at_k(ev);
      const HalideValue sv = HalideValue::of_func(sum, row_shape);
      out(halide_args(fv)) = ev(full) / sv(full_row);
      return HalideValue::of_func(out, output_shape_);
    }

    Expr centered = x(full);
    Halide::Func second(name + (kind_ == NormKind::kLayerNorm ? "_var" : "_ms"));
    if (kind_ == NormKind::kLayerNorm) {
      Halide::Func mean(name + "_mean");
      mean(halide_args(rv)) = 0.0f;
      mean(halide_args(rv)) += x_at_k(x);
      Halide::Func mean_scaled(name + "_mu");
      mean_scaled(halide_args(rv)) = mean(halide_args(rv)) * (1.0f / d);
      const HalideValue mv = HalideValue::of_func(mean_scaled, row_shape);
      const Expr diff = x(merge_index<Expr>(row, axes, {k.x})) - mv(row);
      second(halide_args(rv)) = 0.0f;
      second(halide_args(rv)) += diff * diff;
      centered = x(full) - mv(full_row);
    } else {
      const Expr v = x_at_k(x);
      second(halide_args(rv)) = 0.0f;
      second(halide_args(rv)) += v * v;
    }
    Halide::Func inv(name + "_inv");
    inv(halide_args(rv)) =
        1.0f / Halide::sqrt(second(halide_args(rv)) * (1.0f / d) + static_cast<float>(eps_));
    const HalideValue iv = HalideValue::of_func(inv, row_shape);
    Expr result = centered * iv(full_row);
    if (has_gamma_) result = result * in[1]({full[axis_]});
    if (has_beta_) result = result + in[2]({full[axis_]});
    out(halide_args(fv)) = result;
    return HalideValue::of_func(out, output_shape_);
  }

 private:
  NormKind kind_;
  int64_t axis_ = 0;     // normalized axis, in [0, rank)
  double eps_ = 1e-5;    // added to the variance (layernorm) or mean square (rmsnorm)
  bool has_gamma_ = false, has_beta_ = false;
};

template <NormKind K>
std::unique_ptr<Op> make_norm(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<NormOp>(K, call, attrs);
}

}  // namespace

std::vector<OpDef> normalization_ops() {
  return {
      {"softmax", 1, 1, "softmax along axis (default -1)", make_norm<NormKind::kSoftmax>},
      {"layernorm", 1, 3, "layer normalization along axis; inputs x [, gamma [, beta]]; eps",
       make_norm<NormKind::kLayerNorm>},
      {"rmsnorm", 1, 2, "RMS normalization along axis; inputs x [, gamma]; eps",
       make_norm<NormKind::kRmsNorm>},
  };
}

}  // namespace ktune::subgraphs
