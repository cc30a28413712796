// Type conversions: cast (any type to any type, rounded to nearest even and saturated
// like every store) and requantize, which maps i32 accumulators to 8-bit values as
// quantized inference engines do: q = saturate(round_half_even(x · scale) + zero_point),
// with one scale for the tensor (attribute `scale`) or one per channel (a second input
// [D] along `axis`). The product is taken in f32, in the kernel and in the reference
// alike, so the integer results agree exactly.
#include <cmath>

#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

// The dtype named by attribute `key` (`fallback` when absent); refuses bool, f64 and
// anything outside `allowed` when it is not empty.
DType dtype_attribute(OpAttributes& attrs, const std::string& key, DType fallback, const std::vector<DType>& allowed) {
  std::vector<std::string> names;
  for (DType d : allowed.empty() ? all_dtypes() : allowed) {
    if (d != DType::kBool && d != DType::kU32 && d != DType::kF64) names.push_back(to_string(d));
  }
  return *parse_dtype_name(attrs.get_choice(key, to_string(fallback), names));
}

class CastOp : public Op {
 public:
  CastOp(const OpCall& call, OpAttributes& attrs) {
    output_shape_ = call.input_shapes[0];
    to_ = dtype_attribute(attrs, "to", DType::kF32, {});
    compute_dtype_ = to_;
    output_dtype_ = to_;
  }

  double flops() const override { return 0; }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out = *in[0];
    for (double& v : out.data) v = round_to(to_, v);
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    const DType to = to_;
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      return convert_to(to, x.raw(i));
    });
    return HalideValue::of_func(f, output_shape_, to_);
  }

 private:
  DType to_ = DType::kF32;
};

class RequantizeOp : public Op {
 public:
  RequantizeOp(const OpCall& call, OpAttributes& attrs) {
    output_shape_ = call.input_shapes[0];
    if (call.input_dtypes[0] != DType::kI32) {
      attrs.fail("inputs", "expected an i32 input (an integer matmul or conv2d), found " + to_string(call.input_dtypes[0]));
    }
    out_ = dtype_attribute(attrs, "out_dtype", DType::kI8, {DType::kI8, DType::kU8});
    compute_dtype_ = out_;
    output_dtype_ = out_;
    zero_point_ = attrs.get_int("zero_point", 0);
    if (zero_point_ < lowest_value(out_) || zero_point_ > highest_value(out_)) {
      attrs.fail("zero_point", "expected a zero point inside " + to_string(out_) + "'s range, found " +
                                   std::to_string(zero_point_));
    }
    per_channel_ = call.input_shapes.size() == 2;
    if (per_channel_) {
      axis_ = attrs.get_axis("axis", -1, output_shape_.size());
      const Shape& s = call.input_shapes[1];
      if (s.size() != 1 || s[0] != output_shape_[axis_]) {
        attrs.fail("inputs", "per-channel scales of shape " + shape_to_string(s) + " do not match axis " +
                                 std::to_string(axis_) + " of " + shape_to_string(output_shape_));
      }
      if (call.input_dtypes[1] != DType::kF32) attrs.fail("inputs", "expected f32 scales, found " + to_string(call.input_dtypes[1]));
    } else {
      scale_ = static_cast<float>(attrs.get_double("scale", 1.0));
      if (!(scale_ > 0) || !std::isfinite(scale_)) attrs.fail("scale", "expected a positive finite scale");
    }
  }

  double flops() const override { return 3.0 * static_cast<double>(element_count(output_shape_)); }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_))};
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      const float scale = per_channel_ ? static_cast<float>(in[1]->data[idx[axis_]]) : scale_;
      const float product = static_cast<float>(in[0]->data[flat]) * scale;  // f32, as the kernel does
      const float shifted = std::nearbyint(product) + static_cast<float>(zero_point_);
      out.data[flat] = round_to(out_, shifted);
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    const bool per_channel = per_channel_;
    const int64_t axis = axis_;
    const float scale = scale_;
    const float zero_point = static_cast<float>(zero_point_);
    const DType out = out_;
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      const Expr s = per_channel ? in[1].raw({i[axis]}) : Expr(scale);
      const Expr product = Halide::cast<float>(x.raw(i)) * s;
      return convert_to(out, Halide::round(product) + zero_point);
    });
    return HalideValue::of_func(f, output_shape_, out_);
  }

 private:
  DType out_ = DType::kI8;
  bool per_channel_ = false;
  int64_t axis_ = 0;     // the channel axis of per-channel scales
  float scale_ = 1.0f;   // the per-tensor scale
  int64_t zero_point_ = 0;
};

std::unique_ptr<Op> make_cast(const OpCall& call, OpAttributes& attrs) { return std::make_unique<CastOp>(call, attrs); }
std::unique_ptr<Op> make_requantize(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<RequantizeOp>(call, attrs);
}

}  // namespace

std::vector<OpDef> quantize_ops() {
  return {
      {"cast", 1, 1, "x converted to dtype `to` (rounded to nearest even, saturated)", make_cast},
      {"requantize", 1, 2,
       "i32 → i8/u8: saturate(round(x · scale) + zero_point), scale per tensor or per channel (second input)",
       make_requantize},
  };
}

}  // namespace ktune::subgraphs
