#include "subgraphs/output_bounds.h"

#include <map>
#include <optional>
#include <string>

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

std::optional<int64_t> evaluated(const Halide::Expr& e, const std::map<std::string, Halide::Expr>& known) {
  if (!e.defined()) return std::nullopt;
  const Halide::Expr value = HI::simplify(with_known_values(e, known));
  if (const int64_t* v = HI::as_const_int(value)) return *v;
  return std::nullopt;
}

// `tensor` with the bounds of Func `f` applied, its buffer's values in `known`.
void apply_bounds(const HI::Function& f, const std::map<std::string, Halide::Expr>& known, TensorInfo& tensor) {
  const size_t rank = tensor.shape.size();
  const bool mins_given = !tensor.mins.empty();
  tensor.mins = tensor.mins_or_zero();
  for (const HI::Bound& b : f.schedule().bounds()) {
    for (size_t d = 0; d < f.args().size() && d < rank; ++d) {
      if (f.args()[d] != b.var) continue;
      const size_t axis = rank - 1 - d;
      const std::optional<int64_t> min = evaluated(b.min, known), extent = evaluated(b.extent, known);
      if (min) tensor.mins[axis] = *min;
      if (extent && *extent > 0) tensor.shape[axis] = *extent;
    }
  }
  if (!mins_given && tensor.at_origin()) tensor.mins.clear();
}

}  // namespace

std::vector<TensorInfo> bounded_outputs(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs) {
  const std::map<std::string, Halide::Expr> known = known_values(built, {}, outputs, {});
  std::vector<TensorInfo> bounded = outputs;
  size_t tensor = 0;
  for (const Halide::Func& f : built.outputs) {
    for (int k = 0; k < f.function().outputs() && tensor < bounded.size(); ++k) {
      apply_bounds(f.function(), known, bounded[tensor++]);
    }
  }
  return bounded;
}

}  // namespace ktune::subgraphs
