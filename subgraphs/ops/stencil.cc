// stencil: a small weighted neighbourhood over one or two axes, enough for blurs and
// other image filters. The taps are unrolled into one expression (no reduction loop).
//   {"op": "stencil", "inputs": ["in"], "output": "blur_x", "axes": [1],
//    "weights": [1, 1, 1], "divisor": 3, "padding": "valid"}
// padding "valid" shrinks each stencil axis by (taps - 1); "clamp" repeats the edge and
// "zero" reads zeros outside, both keeping the extent (kernel centred at (taps - 1) / 2).
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

enum class Padding { kValid, kClamp, kZero };

class StencilOp : public Op {
 public:
  StencilOp(const OpCall& call, OpAttributes& attrs) {
    in_shape_ = call.input_shapes[0];
    const nlohmann::json& w = attrs.get_raw("weights");
    if (!w.is_array() || w.empty()) attrs.fail("weights", "expected a non-empty array of numbers (1-D) or of rows (2-D)");
    if (w[0].is_array()) {
      taps_ = {static_cast<int64_t>(w.size()), static_cast<int64_t>(w[0].size())};
      for (size_t i = 0; i < w.size(); ++i) {
        if (!w[i].is_array() || static_cast<int64_t>(w[i].size()) != taps_[1]) {
          attrs.fail("weights[" + std::to_string(i) + "]", "expected a row of " + std::to_string(taps_[1]) + " numbers");
        }
        for (size_t j = 0; j < w[i].size(); ++j) {
          if (!w[i][j].is_number()) attrs.fail("weights[" + std::to_string(i) + "][" + std::to_string(j) + "]", "expected a number");
          weights_.push_back(w[i][j].get<double>());
        }
      }
    } else {
      taps_ = {static_cast<int64_t>(w.size())};
      for (size_t j = 0; j < w.size(); ++j) {
        if (!w[j].is_number()) attrs.fail("weights[" + std::to_string(j) + "]", "expected a number");
        weights_.push_back(w[j].get<double>());
      }
    }
    const size_t r = taps_.size();
    std::vector<int64_t> last;
    for (size_t i = 0; i < r; ++i) last.push_back(static_cast<int64_t>(in_shape_.size() - r + i));
    if (in_shape_.size() < r) attrs.fail("inputs", "input of shape " + shape_to_string(in_shape_) + " has fewer axes than the weights");
    axes_ = attrs.get_int_list("axes", last);
    if (axes_.size() != r) attrs.fail("axes", "expected " + std::to_string(r) + " axes for " + std::to_string(r) + "-D weights");
    for (int64_t& a : axes_) {
      const int64_t rank = static_cast<int64_t>(in_shape_.size());
      if (a < -rank || a >= rank) attrs.fail("axes", "axis " + std::to_string(a) + " is out of range");
      if (a < 0) a += rank;
    }
    if (r == 2 && axes_[0] == axes_[1]) attrs.fail("axes", "the two axes must differ");
    const std::string pad = attrs.get_choice("padding", "valid", {"valid", "clamp", "zero"});
    padding_ = pad == "valid" ? Padding::kValid : pad == "clamp" ? Padding::kClamp : Padding::kZero;
    divisor_ = attrs.get_double("divisor", 1.0);
    if (divisor_ == 0) attrs.fail("divisor", "must not be zero");
    output_shape_ = in_shape_;
    for (size_t i = 0; i < r; ++i) {
      if (padding_ == Padding::kValid) {
        output_shape_[axes_[i]] -= taps_[i] - 1;
        if (output_shape_[axes_[i]] < 1) {
          attrs.fail("weights", "with padding \"valid\", " + std::to_string(taps_[i]) + " taps do not fit axis " +
                                    std::to_string(axes_[i]) + " of input " + shape_to_string(in_shape_));
        }
      }
    }
  }

  double flops() const override {
    return 2.0 * static_cast<double>(weights_.size()) * static_cast<double>(element_count(output_shape_));
  }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_))};
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      double acc = 0;
      for_each_tap([&](const std::vector<int64_t>& tap, double weight) {
        std::vector<int64_t> src = idx;
        bool inside = true;
        for (size_t i = 0; i < axes_.size(); ++i) {
          int64_t s = idx[axes_[i]] + tap[i] - offset(i);
          const int64_t n = in_shape_[axes_[i]];
          if (s < 0 || s >= n) {
            inside = false;
            s = s < 0 ? 0 : n - 1;
          }
          src[axes_[i]] = s;
        }
        if (inside || padding_ == Padding::kClamp) acc += weight * in[0]->data[flat_index(in_shape_, src)];
      });
      out.data[flat] = acc / divisor_;
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& idx) {
      Expr acc;
      for_each_tap([&](const std::vector<int64_t>& tap, double weight) {
        std::vector<Expr> src = idx;
        Expr inside = Halide::Internal::const_true();
        for (size_t i = 0; i < axes_.size(); ++i) {
          const int n = static_cast<int>(in_shape_[axes_[i]]);
          const Expr s = idx[axes_[i]] + static_cast<int>(tap[i] - offset(i));
          if (padding_ == Padding::kValid) {
            src[axes_[i]] = s;
          } else {
            src[axes_[i]] = Halide::clamp(s, 0, n - 1);
            inside = inside && s >= 0 && s < n;
          }
        }
        Expr term = x(src);
        if (padding_ == Padding::kZero) term = Halide::select(inside, term, 0.0f);
        if (weight != 1.0) term = term * static_cast<float>(weight);
        acc = acc.defined() ? acc + term : term;
      });
      return divisor_ == 1.0 ? acc : acc * static_cast<float>(1.0 / divisor_);
    });
    return HalideValue::of_func(f, output_shape_);
  }

 private:
  // Offset of the first tap: 0 for "valid", the kernel centre otherwise.
  int64_t offset(size_t i) const { return padding_ == Padding::kValid ? 0 : (taps_[i] - 1) / 2; }

  template <typename Fn>
  void for_each_tap(Fn&& fn) const {
    for_each_index(taps_, [&](const std::vector<int64_t>& tap, int64_t flat) { fn(tap, weights_[flat]); });
  }

  Shape in_shape_;
  Shape taps_;                    // taps per stencil axis (1 or 2 entries)
  std::vector<double> weights_;   // row-major weights, element_count(taps_) of them
  std::vector<int64_t> axes_;     // input axes the stencil runs along
  Padding padding_ = Padding::kValid;
  double divisor_ = 1.0;          // the weighted sum is divided by this
};

std::unique_ptr<Op> make_stencil(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<StencilOp>(call, attrs);
}

}  // namespace

std::vector<OpDef> stencil_ops() {
  return {{"stencil", 1, 1, "weighted neighbourhood (weights, axes, padding, divisor)", make_stencil}};
}

}  // namespace ktune::subgraphs
