// 2-D pooling: max_pool2d and avg_pool2d over a kernel window with stride and symmetric
// padding, NCHW or NHWC. Padded positions never win a max; avg_pool2d divides by the
// whole window (count_include_pad, default true) or by the valid positions only.
#include <limits>

#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

class PoolOp : public Op {
 public:
  PoolOp(bool is_max, const OpCall& call, OpAttributes& attrs) : is_max_(is_max) {
    nhwc_ = attrs.get_choice("layout", "NCHW", {"NCHW", "NHWC"}) == "NHWC";
    const std::vector<int64_t> kernel = attrs.get_ints("kernel", 2, {2, 2});
    const std::vector<int64_t> stride = attrs.get_ints("stride", 2, kernel);
    const std::vector<int64_t> padding = attrs.get_ints("padding", 2, {0, 0});
    if (!is_max) include_pad_ = attrs.get_bool("count_include_pad", true);
    kh_ = kernel[0], kw_ = kernel[1], sh_ = stride[0], sw_ = stride[1];
    ph_ = padding[0], pw_ = padding[1];
    if (kh_ < 1 || kw_ < 1) attrs.fail("kernel", "expected positive kernel extents");
    if (sh_ < 1 || sw_ < 1) attrs.fail("stride", "expected positive strides");
    if (ph_ < 0 || pw_ < 0 || ph_ >= kh_ || pw_ >= kw_) {
      attrs.fail("padding", "expected padding in [0, kernel)");
    }
    in_shape_ = call.input_shapes[0];
    if (in_shape_.size() != 4) {
      attrs.fail("inputs", "expected a rank-4 input, found shape " + shape_to_string(in_shape_));
    }
    h_ = nhwc_ ? in_shape_[1] : in_shape_[2];
    w_ = nhwc_ ? in_shape_[2] : in_shape_[3];
    if (h_ + 2 * ph_ < kh_ || w_ + 2 * pw_ < kw_) {
      attrs.fail("kernel", "a " + std::to_string(kh_) + "x" + std::to_string(kw_) +
                               " window does not fit input " + shape_to_string(in_shape_));
    }
    oh_ = (h_ + 2 * ph_ - kh_) / sh_ + 1;
    ow_ = (w_ + 2 * pw_ - kw_) / sw_ + 1;
    output_shape_ = in_shape_;
    output_shape_[nhwc_ ? 1 : 2] = oh_;
    output_shape_[nhwc_ ? 2 : 3] = ow_;
  }

  double flops() const override {
    return static_cast<double>(element_count(output_shape_)) * kh_ * kw_;
  }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_))};
    const int hy = nhwc_ ? 1 : 2, wx = nhwc_ ? 2 : 3;
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      double acc = is_max_ ? -std::numeric_limits<double>::infinity() : 0.0;
      int64_t valid = 0;
      std::vector<int64_t> src = idx;
      for (int64_t ky = 0; ky < kh_; ++ky) {
        for (int64_t kx = 0; kx < kw_; ++kx) {
          src[hy] = idx[hy] * sh_ + ky - ph_;
          src[wx] = idx[wx] * sw_ + kx - pw_;
          if (src[hy] < 0 || src[hy] >= h_ || src[wx] < 0 || src[wx] >= w_) continue;
          const double v = in[0]->data[flat_index(in_shape_, src)];
          acc = is_max_ ? std::max(acc, v) : acc + v;
          ++valid;
        }
      }
      if (!is_max_) acc /= static_cast<double>(include_pad_ ? kh_ * kw_ : valid);
      out.data[flat] = acc;
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    const int hy = nhwc_ ? 1 : 2, wx = nhwc_ ? 2 : 3;
    const int H = static_cast<int>(h_), W = static_cast<int>(w_);
    Halide::RDom r(0, static_cast<int>(kh_), 0, static_cast<int>(kw_), "r");
    const std::vector<Halide::Var> v = outer_first_vars(4);
    const std::vector<Expr> out_idx = as_exprs(v);
    const Expr iy = out_idx[hy] * static_cast<int>(sh_) + r.x - static_cast<int>(ph_);
    const Expr ix = out_idx[wx] * static_cast<int>(sw_) + r.y - static_cast<int>(pw_);
    std::vector<Expr> src = out_idx;
    src[hy] = Halide::clamp(iy, 0, H - 1);
    src[wx] = Halide::clamp(ix, 0, W - 1);
    const Expr inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
    Halide::Func acc(name + "_acc");
    Halide::Func out(name);
    if (is_max_) {
      acc(halide_args(v)) = Halide::Float(32).min();
      acc(halide_args(v)) = Halide::max(acc(halide_args(v)), Halide::select(inside, x(src), Halide::Float(32).min()));
      out(halide_args(v)) = acc(halide_args(v));
    } else {
      acc(halide_args(v)) = 0.0f;
      acc(halide_args(v)) += Halide::select(inside, x(src), 0.0f);
      Expr count = static_cast<float>(kh_ * kw_);
      if (!include_pad_) {
        const Expr y0 = out_idx[hy] * static_cast<int>(sh_) - static_cast<int>(ph_);
        const Expr x0 = out_idx[wx] * static_cast<int>(sw_) - static_cast<int>(pw_);
        const Expr rows = Halide::min(y0 + static_cast<int>(kh_), H) - Halide::max(y0, 0);
        const Expr cols = Halide::min(x0 + static_cast<int>(kw_), W) - Halide::max(x0, 0);
        count = Halide::cast<float>(rows * cols);
      }
      out(halide_args(v)) = acc(halide_args(v)) / count;
    }
    return HalideValue::of_func(out, output_shape_);
  }

 private:
  bool is_max_;
  bool nhwc_ = false;         // NHWC layout; otherwise NCHW
  bool include_pad_ = true;   // avg_pool2d divides by the whole window
  Shape in_shape_;
  int64_t kh_ = 2, kw_ = 2, sh_ = 2, sw_ = 2, ph_ = 0, pw_ = 0;  // window, stride, padding
  int64_t h_ = 0, w_ = 0, oh_ = 0, ow_ = 0;  // input and output height and width
};

std::unique_ptr<Op> make_max_pool(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<PoolOp>(true, call, attrs);
}
std::unique_ptr<Op> make_avg_pool(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<PoolOp>(false, call, attrs);
}

}  // namespace

std::vector<OpDef> pool_ops() {
  return {
      {"max_pool2d", 1, 1, "max over a window (kernel, stride, padding, layout)", make_max_pool},
      {"avg_pool2d", 1, 1, "mean over a window (kernel, stride, padding, layout, count_include_pad)",
       make_avg_pool},
  };
}

}  // namespace ktune::subgraphs
