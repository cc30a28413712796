// Elementwise ops: unary (relu, gelu, sigmoid, tanh, exp, neg, scale), binary with NumPy
// broadcasting (add, sub, mul, div, max, min) and bias_add along one axis. relu, neg, add,
// sub, max, min and bias_add of i32 values compute exactly in i32 (op_types.h).
#include <cmath>

#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"
#include "subgraphs/ops/op_types.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

// tanh(u) = 1 - 2 / (exp(2u) + 1). Halide's tanh is a scalar libm call that does not
// vectorize; exp on f32 does.
Expr vector_friendly_tanh(const Expr& u) { return 1.0f - 2.0f / (Halide::exp(2.0f * u) + 1.0f); }

enum class UnaryKind { kRelu, kGelu, kSigmoid, kTanh, kExp, kNeg, kScale };

class UnaryOp : public Op {
 public:
  UnaryOp(UnaryKind kind, const OpCall& call, OpAttributes& attrs) : kind_(kind) {
    output_shape_ = call.input_shapes[0];
    if (kind == UnaryKind::kScale) factor_ = attrs.get_double("factor", 1.0);
    if ((kind == UnaryKind::kRelu || kind == UnaryKind::kNeg) && all_i32(call.input_dtypes)) {
      compute_dtype_ = DType::kI32;
    }
  }

  double flops() const override {
    static const double kPerElement[] = {1, 10, 4, 4, 1, 1, 1};
    return kPerElement[static_cast<int>(kind_)] * static_cast<double>(element_count(output_shape_));
  }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, in[0]->data};
    for (double& v : out.data) v = apply(v);
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    const UnaryKind kind = kind_;
    const float factor = static_cast<float>(factor_);
    if (compute_dtype_ == DType::kI32) {
      Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
        const Expr v = x.raw(i);
        return kind == UnaryKind::kRelu ? Halide::max(v, 0) : -v;
      });
      return HalideValue::of_func(f, output_shape_, DType::kI32);
    }
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      const Expr v = x(i);
      switch (kind) {
        case UnaryKind::kRelu:
          return Halide::max(v, 0.0f);
        case UnaryKind::kGelu: {
          const Expr u = 0.7978845608f * (v + 0.044715f * v * v * v);
          return 0.5f * v * (1.0f + vector_friendly_tanh(u));
        }
        case UnaryKind::kSigmoid:
          return 1.0f / (1.0f + Halide::exp(-v));
        case UnaryKind::kTanh:
          return vector_friendly_tanh(v);
        case UnaryKind::kExp:
          return Halide::exp(v);
        case UnaryKind::kNeg:
          return -v;
        case UnaryKind::kScale:
          return v * factor;
      }
      return v;
    });
    return HalideValue::of_func(f, output_shape_);
  }

 private:
  double apply(double v) const {
    switch (kind_) {
      case UnaryKind::kRelu:
        return v > 0 ? v : 0;
      case UnaryKind::kGelu:
        return 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      case UnaryKind::kSigmoid:
        return 1.0 / (1.0 + std::exp(-v));
      case UnaryKind::kTanh:
        return std::tanh(v);
      case UnaryKind::kExp:
        return std::exp(v);
      case UnaryKind::kNeg:
        return -v;
      case UnaryKind::kScale:
        return v * static_cast<double>(static_cast<float>(factor_));
    }
    return v;
  }

  UnaryKind kind_;
  double factor_ = 1.0;  // multiplier of `scale`
};

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kMax, kMin };

// Output shape of NumPy broadcasting, or a UserError naming both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, OpAttributes& attrs) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t ea = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t eb = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (ea != eb && ea != 1 && eb != 1) {
      attrs.fail("inputs", "incompatible shapes " + shape_to_string(a) + " and " +
                               shape_to_string(b) + " for broadcasting (axis -" +
                               std::to_string(k + 1) + ": " + std::to_string(ea) + " vs " +
                               std::to_string(eb) + ")");
    }
    out[rank - 1 - k] = std::max(ea, eb);
  }
  return out;
}

// Index into an operand of shape `shape` broadcast to an output index (outer first).
template <typename Index>
std::vector<Index> broadcast_index(const Shape& shape, const std::vector<Index>& out_idx,
                                   const Index& zero) {
  std::vector<Index> idx(shape.size(), zero);
  const size_t offset = out_idx.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) idx[d] = out_idx[d + offset];
  }
  return idx;
}

class BinaryOp : public Op {
 public:
  BinaryOp(BinaryKind kind, const OpCall& call, OpAttributes& attrs) : kind_(kind) {
    a_shape_ = call.input_shapes[0];
    b_shape_ = call.input_shapes[1];
    output_shape_ = broadcast_shapes(a_shape_, b_shape_, attrs);
    const bool exact = kind == BinaryKind::kAdd || kind == BinaryKind::kSub || kind == BinaryKind::kMax ||
                       kind == BinaryKind::kMin;
    if (exact && all_i32(call.input_dtypes)) compute_dtype_ = DType::kI32;
  }

  double flops() const override { return static_cast<double>(element_count(output_shape_)); }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_))};
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      const double a = in[0]->data[flat_index(a_shape_, broadcast_index<int64_t>(a_shape_, idx, 0))];
      const double b = in[1]->data[flat_index(b_shape_, broadcast_index<int64_t>(b_shape_, idx, 0))];
      switch (kind_) {
        case BinaryKind::kAdd: out.data[flat] = a + b; break;
        case BinaryKind::kSub: out.data[flat] = a - b; break;
        case BinaryKind::kMul: out.data[flat] = a * b; break;
        case BinaryKind::kDiv: out.data[flat] = a / b; break;
        case BinaryKind::kMax: out.data[flat] = std::max(a, b); break;
        case BinaryKind::kMin: out.data[flat] = std::min(a, b); break;
      }
      if (compute_dtype_ == DType::kI32) out.data[flat] = wrap_to_i32(out.data[flat]);
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue a = in[0], b = in[1];
    const Shape as = a_shape_, bs = b_shape_;
    const BinaryKind kind = kind_;
    const bool integer = compute_dtype_ == DType::kI32;
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      const std::vector<Expr> ia = broadcast_index<Expr>(as, i, Expr(0));
      const std::vector<Expr> ib = broadcast_index<Expr>(bs, i, Expr(0));
      const Expr va = integer ? a.raw(ia) : a(ia);
      const Expr vb = integer ? b.raw(ib) : b(ib);
      switch (kind) {
        case BinaryKind::kAdd: return va + vb;
        case BinaryKind::kSub: return va - vb;
        case BinaryKind::kMul: return va * vb;
        case BinaryKind::kDiv: return va / vb;
        case BinaryKind::kMax: return Halide::max(va, vb);
        case BinaryKind::kMin: return Halide::min(va, vb);
      }
      return va;
    });
    return HalideValue::of_func(f, output_shape_, compute_dtype_);
  }

 private:
  BinaryKind kind_;
  Shape a_shape_, b_shape_;  // operand shapes before broadcasting
};

// bias_add(x, b): adds the rank-1 `b` along `axis` of x (default: the last axis).
class BiasAddOp : public Op {
 public:
  BiasAddOp(const OpCall& call, OpAttributes& attrs) {
    output_shape_ = call.input_shapes[0];
    axis_ = attrs.get_axis("axis", -1, output_shape_.size());
    const Shape& b = call.input_shapes[1];
    if (b.size() != 1 || b[0] != output_shape_[axis_]) {
      attrs.fail("inputs", "bias of shape " + shape_to_string(b) + " does not match axis " +
                               std::to_string(axis_) + " of input shape " +
                               shape_to_string(output_shape_) + " (expected [" +
                               std::to_string(output_shape_[axis_]) + "])");
    }
    if (all_i32(call.input_dtypes)) compute_dtype_ = DType::kI32;
  }

  double flops() const override { return static_cast<double>(element_count(output_shape_)); }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, in[0]->data};
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      out.data[flat] += in[1]->data[idx[axis_]];
      if (compute_dtype_ == DType::kI32) out.data[flat] = wrap_to_i32(out.data[flat]);
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0], b = in[1];
    const int64_t axis = axis_;
    const bool integer = compute_dtype_ == DType::kI32;
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      return integer ? x.raw(i) + b.raw({i[axis]}) : x(i) + b({i[axis]});
    });
    return HalideValue::of_func(f, output_shape_, compute_dtype_);
  }

 private:
  int64_t axis_ = 0;  // axis of x that the bias runs along, normalized
};

template <UnaryKind K>
std::unique_ptr<Op> make_unary(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<UnaryOp>(K, call, attrs);
}

template <BinaryKind K>
std::unique_ptr<Op> make_binary(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<BinaryOp>(K, call, attrs);
}

std::unique_ptr<Op> make_bias_add(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<BiasAddOp>(call, attrs);
}

}  // namespace

std::vector<OpDef> elementwise_ops() {
  return {
      {"relu", 1, 1, "max(x, 0)", make_unary<UnaryKind::kRelu>},
      {"gelu", 1, 1, "GELU, tanh approximation", make_unary<UnaryKind::kGelu>},
      {"sigmoid", 1, 1, "1 / (1 + exp(-x))", make_unary<UnaryKind::kSigmoid>},
      {"tanh", 1, 1, "hyperbolic tangent", make_unary<UnaryKind::kTanh>},
      {"exp", 1, 1, "exponential", make_unary<UnaryKind::kExp>},
      {"neg", 1, 1, "-x", make_unary<UnaryKind::kNeg>},
      {"scale", 1, 1, "x * factor (attribute factor, default 1)", make_unary<UnaryKind::kScale>},
      {"add", 2, 2, "a + b with broadcasting", make_binary<BinaryKind::kAdd>},
      {"sub", 2, 2, "a - b with broadcasting", make_binary<BinaryKind::kSub>},
      {"mul", 2, 2, "a * b with broadcasting", make_binary<BinaryKind::kMul>},
      {"div", 2, 2, "a / b with broadcasting", make_binary<BinaryKind::kDiv>},
      {"max", 2, 2, "max(a, b) with broadcasting", make_binary<BinaryKind::kMax>},
      {"min", 2, 2, "min(a, b) with broadcasting", make_binary<BinaryKind::kMin>},
      {"bias_add", 2, 2, "x + b along axis (default -1)", make_bias_add},
  };
}

}  // namespace ktune::subgraphs
