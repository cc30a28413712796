// Layout ops: transpose by a permutation of the axes (default: reverse them).
#include "subgraphs/internal/halide_value.h"
#include "subgraphs/ops/families.h"

namespace ktune::subgraphs {
namespace {

using Halide::Expr;

class TransposeOp : public Op {
 public:
  TransposeOp(const OpCall& call, OpAttributes& attrs) {
    in_shape_ = call.input_shapes[0];
    const int64_t rank = static_cast<int64_t>(in_shape_.size());
    std::vector<int64_t> reversed;
    for (int64_t d = rank - 1; d >= 0; --d) reversed.push_back(d);
    perm_ = attrs.get_int_list("perm", reversed);
    std::vector<bool> seen(rank, false);
    if (static_cast<int64_t>(perm_.size()) != rank) {
      attrs.fail("perm", "expected a permutation of " + std::to_string(rank) + " axes, found " +
                             std::to_string(perm_.size()) + " entries");
    }
    for (int64_t& p : perm_) {
      if (p < -rank || p >= rank) attrs.fail("perm", "axis " + std::to_string(p) + " is out of range");
      if (p < 0) p += rank;
      if (seen[p]) attrs.fail("perm", "axis " + std::to_string(p) + " appears twice");
      seen[p] = true;
    }
    for (int64_t p : perm_) output_shape_.push_back(in_shape_[p]);
  }

  double flops() const override { return 0; }

  RefTensor reference(const std::vector<const RefTensor*>& in) const override {
    RefTensor out{output_shape_, std::vector<double>(in[0]->data.size())};
    for_each_index(output_shape_, [&](const std::vector<int64_t>& idx, int64_t flat) {
      out.data[flat] = in[0]->data[flat_index(in_shape_, source_index<int64_t>(idx))];
    });
    return out;
  }

  HalideValue build(const std::vector<HalideValue>& in, const std::string& name) const override {
    const HalideValue x = in[0];
    Halide::Func f = define_func(name, output_shape_.size(), [&](const std::vector<Expr>& i) {
      return x(source_index<Expr>(i));
    });
    return HalideValue::of_func(f, output_shape_);
  }

 private:
  // Output axis i reads input axis perm_[i].
  template <typename Index>
  std::vector<Index> source_index(const std::vector<Index>& out_idx) const {
    std::vector<Index> src(out_idx.size(), out_idx[0]);
    for (size_t i = 0; i < perm_.size(); ++i) src[perm_[i]] = out_idx[i];
    return src;
  }

  Shape in_shape_;
  std::vector<int64_t> perm_;  // output axis i is input axis perm_[i]
};

std::unique_ptr<Op> make_transpose(const OpCall& call, OpAttributes& attrs) {
  return std::make_unique<TransposeOp>(call, attrs);
}

}  // namespace

std::vector<OpDef> layout_ops() {
  return {{"transpose", 1, 1, "permute axes (perm, default reversed)", make_transpose}};
}

}  // namespace ktune::subgraphs
