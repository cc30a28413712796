// conv2d: 2-D convolution in NCHW (weights OIHW) or NHWC (weights HWIO) layout, with
// stride, symmetric zero padding, dilation and groups (groups = channels gives a
// depthwise convolution). Bias and activation are separate ops that fuse with it. 8-bit
// integer inputs and weights accumulate exactly in i32.
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"
#include "subgraphs/ops/op_types.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

class Conv2dOp : public Op {
 public:
  Conv2dOp(const OpCall& call, OpAttributes& attrs) {
    nhwc_ = attrs.get_choice("layout", "NCHW", {"NCHW", "NHWC"}) == "NHWC";
    const std::vector<int64_t> stride = attrs.get_ints("stride", 2, {1, 1});
    const std::vector<int64_t> padding = attrs.get_ints("padding", 2, {0, 0});
    const std::vector<int64_t> dilation = attrs.get_ints("dilation", 2, {1, 1});
    groups_ = attrs.get_int("groups", 1);
    for (int d = 0; d < 2; ++d) {
      if (stride[d] < 1) attrs.fail("stride", "expected positive strides");
      if (dilation[d] < 1) attrs.fail("dilation", "expected positive dilations");
      if (padding[d] < 0) attrs.fail("padding", "expected non-negative padding");
    }
    sh_ = stride[0], sw_ = stride[1], ph_ = padding[0], pw_ = padding[1];
    dh_ = dilation[0], dw_ = dilation[1];
    const Shape& x = call.input_shapes[0];
    const Shape& w = call.input_shapes[1];
    if (x.size() != 4 || w.size() != 4) {
      attrs.fail("inputs", "expected a rank-4 input and rank-4 weights, found shapes " +
                               shape_to_string(x) + " and " + shape_to_string(w));
    }
    n_ = x[0];
    c_ = nhwc_ ? x[3] : x[1];
    h_ = nhwc_ ? x[1] : x[2];
    w_ = nhwc_ ? x[2] : x[3];
    o_ = nhwc_ ? w[3] : w[0];
    cg_ = nhwc_ ? w[2] : w[1];
    kh_ = nhwc_ ? w[0] : w[2];
    kw_ = nhwc_ ? w[1] : w[3];
    if (groups_ < 1 || c_ % groups_ != 0 || o_ % groups_ != 0) {
      attrs.fail("groups", "groups = " + std::to_string(groups_) + " must divide the input channels (" +
                               std::to_string(c_) + ") and the output channels (" +
                               std::to_string(o_) + ")");
    }
    if (cg_ != c_ / groups_) {
      attrs.fail("inputs", "weights of shape " + shape_to_string(w) + " have " +
                               std::to_string(cg_) + " input channels per group; input " +
                               shape_to_string(x) + " with groups = " + std::to_string(groups_) +
                               " needs " + std::to_string(c_ / groups_));
    }
    oh_ = (h_ + 2 * ph_ - dh_ * (kh_ - 1) - 1) / sh_ + 1;
    ow_ = (w_ + 2 * pw_ - dw_ * (kw_ - 1) - 1) / sw_ + 1;
    if (h_ + 2 * ph_ < dh_ * (kh_ - 1) + 1 || w_ + 2 * pw_ < dw_ * (kw_ - 1) + 1) {
      attrs.fail("inputs", "the kernel of shape " + shape_to_string(w) +
                               " does not fit the padded input " + shape_to_string(x));
    }
    output_shape_ = nhwc_ ? Shape{n_, oh_, ow_, o_} : Shape{n_, o_, oh_, ow_};
    if (integer_product(call.input_dtypes)) {
      compute_dtype_ = DType::kI32;
      if (!accumulation_fits_i32(cg_ * kh_ * kw_, call.input_dtypes[0], call.input_dtypes[1])) {
        attrs.fail("inputs", "a sum of " + std::to_string(cg_ * kh_ * kw_) + " products of " +
                                 to_string(call.input_dtypes[0]) + " and " + to_string(call.input_dtypes[1]) +
                                 " values can overflow the i32 accumulator");
      }
    }
  }

  double flops() const override { return 2.0 * n_ * o_ * oh_ * ow_ * cg_ * kh_ * kw_; }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    const RefTensor& x = *in[0];
    const RefTensor& w = *in[1];
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_))};
    const int64_t og = o_ / groups_;
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t o = 0; o < o_; ++o)
        for (int64_t y = 0; y < oh_; ++y)
          for (int64_t xo = 0; xo < ow_; ++xo) {
            double acc = 0;
            const int64_t g = o / og;
            for (int64_t ci = 0; ci < cg_; ++ci)
              for (int64_t ky = 0; ky < kh_; ++ky)
                for (int64_t kx = 0; kx < kw_; ++kx) {
                  const int64_t iy = y * sh_ + ky * dh_ - ph_;
                  const int64_t ix = xo * sw_ + kx * dw_ - pw_;
                  if (iy < 0 || iy >= h_ || ix < 0 || ix >= w_) continue;
                  const int64_t c = g * cg_ + ci;
                  acc += x.data[x_offset(n, c, iy, ix)] * w.data[w_offset(o, ci, ky, kx)];
                }
            out.data[nhwc_ ? ((n * oh_ + y) * ow_ + xo) * o_ + o : ((n * o_ + o) * oh_ + y) * ow_ + xo] = acc;
          }
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0], w = in[1];
    const bool nhwc = nhwc_;
    const bool integer = compute_dtype_ == DType::kI32;
    // Integer convolutions read operands in their stored type and widen them to i32.
    auto at = [nhwc, integer](const HalideValue& t, Expr n, Expr c, Expr y, Expr xx) {
      const std::vector<Expr> idx = nhwc ? std::vector<Expr>{n, y, xx, c} : std::vector<Expr>{n, c, y, xx};
      return integer ? t.raw(idx) : t(idx);
    };
    // Zero padding as its own Func so schedules can place it.
    std::function<Expr(Expr, Expr, Expr, Expr)> input = [=](Expr n, Expr c, Expr y, Expr xx) {
      return at(x, n, c, y, xx);
    };
    if (ph_ > 0 || pw_ > 0) {
      const int H = static_cast<int>(h_), W = static_cast<int>(w_);
      Halide::Func pad = define_func(name + "_pad", 4, [&](const std::vector<Expr>& i) {
        const Expr n = i[0];
        const Expr c = nhwc ? i[3] : i[1];
        const Expr y = nhwc ? i[1] : i[2];
        const Expr xx = nhwc ? i[2] : i[3];
        const Expr inside = y >= 0 && y < H && xx >= 0 && xx < W;
        const Expr value = at(x, n, c, Halide::clamp(y, 0, H - 1), Halide::clamp(xx, 0, W - 1));
        return Halide::select(inside, value, Halide::cast(value.type(), 0));
      });
      const HalideValue padded = HalideValue::of_func(pad, {n_, nhwc ? h_ : c_, nhwc ? w_ : h_, nhwc ? c_ : w_},
                                                      integer ? x.dtype() : DType::kF32);
      input = [=](Expr n, Expr c, Expr y, Expr xx) { return at(padded, n, c, y, xx); };
    }
    Halide::RDom r(0, static_cast<int>(cg_), 0, static_cast<int>(kh_), 0, static_cast<int>(kw_), "r");
    const std::vector<Halide::Var> v = outer_first_vars(4);
    const Expr n = v[0];
    const Expr o = nhwc ? Expr(v[3]) : Expr(v[1]);
    const Expr y = nhwc ? Expr(v[1]) : Expr(v[2]);
    const Expr xx = nhwc ? Expr(v[2]) : Expr(v[3]);
    const Expr c = groups_ == 1 ? Expr(r.x) : (o / static_cast<int>(o_ / groups_)) * static_cast<int>(cg_) + r.x;
    const Expr iy = y * static_cast<int>(sh_) + r.y * static_cast<int>(dh_) - static_cast<int>(ph_);
    const Expr ix = xx * static_cast<int>(sw_) + r.z * static_cast<int>(dw_) - static_cast<int>(pw_);
    const std::vector<Expr> w_idx = nhwc ? std::vector<Expr>{r.y, r.z, r.x, o} : std::vector<Expr>{o, r.x, r.y, r.z};
    Halide::Func acc(name + "_acc");
    if (integer) {
      const Expr weight = quad_blocked_weights() ? quad_blocked(w, name)(r.x % 4, o, r.x / 4, r.z, r.y) : w.raw(w_idx);
      acc(halide_args(v)) = 0;
      acc(halide_args(v)) += Halide::cast<int32_t>(input(n, c, iy, ix)) * Halide::cast<int32_t>(weight);
    } else {
      acc(halide_args(v)) = 0.0f;
      acc(halide_args(v)) += input(n, c, iy, ix) * w(w_idx);
    }
    Halide::Func out(name);
    out(halide_args(v)) = acc(halide_args(v));
    return HalideValue::of_func(out, output_shape_, compute_dtype_);
  }

 private:
  int64_t x_offset(int64_t n, int64_t c, int64_t y, int64_t x) const {
    return nhwc_ ? ((n * h_ + y) * w_ + x) * c_ + c : ((n * c_ + c) * h_ + y) * w_ + x;
  }
  // 8-bit NHWC weights whose input channels come in fours: read through quad_blocked.
  bool quad_blocked_weights() const { return nhwc_ && compute_dtype_ == DType::kI32 && cg_ % 4 == 0; }

  // HWIO weights with their input channels in blocks of four, each block's four values
  // innermost, then the output channels: blocked(ky, kx, ci / 4, co, ci % 4), outer first
  // (called innermost first, as every Func).
  // Four input channels of 16 output channels are then 64 adjacent bytes, the operand of
  // one VNNI dot product (vpdpbusd) across a vector of output channels. Inlined, it reads
  // the weights as they are stored.
  static Halide::Func quad_blocked(const HalideValue& w, const std::string& name) {
    return define_func(name + "_w_quads", 5, [&](const std::vector<Expr>& i) {
      return w.raw({i[0], i[1], i[2] * 4 + i[4], i[3]});
    });
  }

  int64_t w_offset(int64_t o, int64_t ci, int64_t ky, int64_t kx) const {
    return nhwc_ ? ((ky * kw_ + kx) * cg_ + ci) * o_ + o : ((o * cg_ + ci) * kh_ + ky) * kw_ + kx;
  }

  bool nhwc_ = false;  // NHWC activations with HWIO weights; otherwise NCHW with OIHW
  int64_t groups_ = 1;
  int64_t sh_ = 1, sw_ = 1, ph_ = 0, pw_ = 0, dh_ = 1, dw_ = 1;  // stride, padding, dilation
  int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0;  // input batch, channels, height, width
  int64_t o_ = 0, cg_ = 0, kh_ = 0, kw_ = 0;  // output channels, channels per group, kernel
  int64_t oh_ = 0, ow_ = 0;  // output height and width
};

std::unique_ptr<Op> make_conv2d(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<Conv2dOp>(call, attrs);
}

}  // namespace

std::vector<OpDef> conv_ops() {
  return {{"conv2d", 2, 2,
           "2-D convolution (layout NCHW|NHWC, stride, padding, dilation, groups)", make_conv2d}};
}

}  // namespace ktune::subgraphs
