// Matrix products: matmul ([M,K]·[K,N]) and batch_matmul ([B,M,K]·[B,K,N]), each with
// optional transposes of either operand. The reduction is its own Func (`<name>_acc`)
// with a pure output stage over it, the form autoschedulers and ktune tile best. 8-bit
// integer operands (u8 × i8 as VNNI pairs them, i8 × i8, u8 × u8) accumulate exactly in i32.
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"
#include "subgraphs/ops/op_types.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

class MatmulOp : public Op {
 public:
  MatmulOp(bool batched, const OpCall& call, OpAttributes& attrs) : batched_(batched) {
    transpose_a_ = attrs.get_bool("transpose_a", false);
    transpose_b_ = attrs.get_bool("transpose_b", false);
    const Shape& a = call.input_shapes[0];
    const Shape& b = call.input_shapes[1];
    const size_t rank = batched ? 3 : 2;
    if (a.size() != rank || b.size() != rank) {
      attrs.fail("inputs", "expected two rank-" + std::to_string(rank) + " inputs, found shapes " +
                               shape_to_string(a) + " and " + shape_to_string(b));
    }
    const size_t o = batched ? 1 : 0;  // offset of the matrix axes
    m_ = transpose_a_ ? a[o + 1] : a[o];
    k_ = transpose_a_ ? a[o] : a[o + 1];
    const int64_t kb = transpose_b_ ? b[o + 1] : b[o];
    n_ = transpose_b_ ? b[o] : b[o + 1];
    if (k_ != kb) {
      attrs.fail("inputs", "inner dimensions differ: " + shape_to_string(a) +
                               (transpose_a_ ? "ᵀ" : "") + " · " + shape_to_string(b) +
                               (transpose_b_ ? "ᵀ" : "") + " (" + std::to_string(k_) + " vs " +
                               std::to_string(kb) + ")");
    }
    if (batched) {
      batch_ = a[0];
      if (b[0] != a[0]) {
        attrs.fail("inputs", "batch sizes differ: " + shape_to_string(a) + " and " +
                                 shape_to_string(b));
      }
      output_shape_ = {batch_, m_, n_};
    } else {
      output_shape_ = {m_, n_};
    }
    if (integer_product(call.input_dtypes)) {
      compute_dtype_ = DType::kI32;
      if (!accumulation_fits_i32(k_, call.input_dtypes[0], call.input_dtypes[1])) {
        attrs.fail("inputs", "a sum of " + std::to_string(k_) + " products of " + to_string(call.input_dtypes[0]) +
                                 " and " + to_string(call.input_dtypes[1]) + " values can overflow the i32 accumulator");
      }
    }
  }

  double flops() const override { return 2.0 * batch_ * m_ * n_ * k_; }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(element_count(output_shape_), 0.0)};
    const double* a = in[0]->data.data();
    const double* b = in[1]->data.data();
    std::vector<double> row(n_);
    for (int64_t p = 0; p < batch_; ++p) {
      const double* ap = a + p * m_ * k_;
      const double* bp = b + p * k_ * n_;
      for (int64_t i = 0; i < m_; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t kk = 0; kk < k_; ++kk) {
          const double av = transpose_a_ ? ap[kk * m_ + i] : ap[i * k_ + kk];
          for (int64_t j = 0; j < n_; ++j) {
            row[j] += av * (transpose_b_ ? bp[j * k_ + kk] : bp[kk * n_ + j]);
          }
        }
        std::copy(row.begin(), row.end(), out.data.begin() + (p * m_ + i) * n_);
      }
    }
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue a = in[0], b = in[1];
    Halide::RDom k(0, static_cast<int>(k_), "k");
    Halide::Func acc(name + "_acc");
    const std::vector<Halide::Var> v = outer_first_vars(output_shape_.size());
    const std::vector<Expr> idx = as_exprs(v);
    const Expr i = idx[batched_ ? 1 : 0], j = idx[batched_ ? 2 : 1];
    std::vector<Expr> ai = transpose_a_ ? std::vector<Expr>{k.x, i} : std::vector<Expr>{i, k.x};
    std::vector<Expr> bi = transpose_b_ ? std::vector<Expr>{j, k.x} : std::vector<Expr>{k.x, j};
    if (batched_) {
      ai.insert(ai.begin(), idx[0]);
      bi.insert(bi.begin(), idx[0]);
    }
    if (compute_dtype_ == DType::kI32) {
      acc(halide_args(v)) = 0;
      acc(halide_args(v)) += Halide::cast<int32_t>(a.raw(ai)) * Halide::cast<int32_t>(b.raw(bi));
    } else {
      acc(halide_args(v)) = 0.0f;
      acc(halide_args(v)) += a(ai) * b(bi);
    }
    Halide::Func out(name);
    out(halide_args(v)) = acc(halide_args(v));
    return HalideValue::of_func(out, output_shape_, compute_dtype_);
  }

 private:
  bool batched_;
  bool transpose_a_ = false, transpose_b_ = false;
  int64_t batch_ = 1, m_ = 0, n_ = 0, k_ = 0;  // problem sizes (batch_ is 1 for matmul)
};

std::unique_ptr<Op> make_matmul(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<MatmulOp>(false, call, attrs);
}
std::unique_ptr<Op> make_batch_matmul(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<MatmulOp>(true, call, attrs);
}

}  // namespace

std::vector<OpDef> matmul_ops() {
  return {
      {"matmul", 2, 2, "[M,K]·[K,N] (transpose_a, transpose_b)", make_matmul},
      {"batch_matmul", 2, 2, "[B,M,K]·[B,K,N] (transpose_a, transpose_b)", make_batch_matmul},
  };
}

}  // namespace ktune::subgraphs
