#include "subgraphs/internal/func_footprint.h"

#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

// Counts the calls to every Func in the expressions it is shown (each call site once).
class CallCounter : public HI::IRVisitor {
 public:
  using IRVisitor::visit;
  std::map<std::string, int> counts;

 protected:
  void visit(const HI::Call* op) override {
    IRVisitor::visit(op);
    if (op->call_type == HI::Call::Halide) ++counts[op->name];
  }
};

std::vector<const HI::Definition*> definitions(const HI::Function& f) {
  std::vector<const HI::Definition*> defs = {&f.definition()};
  for (const auto& u : f.updates()) defs.push_back(&u);
  return defs;
}

std::optional<int64_t> constant(const Halide::Expr& e) {
  if (!e.defined()) return std::nullopt;
  const Halide::Expr s = HI::simplify(e);
  if (const int64_t* v = HI::as_const_int(s)) return *v;
  return std::nullopt;
}

}  // namespace

double box_points(const HI::Box& box) {
  double points = 1;
  for (size_t d = 0; d < box.size(); ++d) {
    if (!box[d].min.defined() || !box[d].max.defined()) return -1;
    const std::optional<int64_t> min = constant(box[d].min), max = constant(box[d].max);
    if (!min || !max) return -1;
    points *= static_cast<double>(std::max<int64_t>(0, *max - *min + 1));
  }
  return points;
}

int unbounded_dimension(const HI::Box& box) {
  for (size_t d = 0; d < box.size(); ++d) {
    if (!box[d].min.defined() || !box[d].max.defined()) return static_cast<int>(d);
  }
  return -1;
}

HI::Box written_box(const HI::Function& f, const HI::Box& box, const std::map<std::string, Halide::Expr>& known) {
  HI::Box result = box;
  for (const HI::Definition& u : f.updates()) {
    HI::Scope<HI::Interval> scope;
    for (size_t a = 0; a < f.args().size() && a < box.size(); ++a) scope.push(f.args()[a], box[a]);
    for (const HI::ReductionVariable& rv : u.schedule().rvars()) {
      const Halide::Expr min = HI::simplify(with_known_values(rv.min, known));
      scope.push(rv.var, HI::Interval(min, HI::simplify(min + with_known_values(rv.extent, known) - 1)));
    }
    for (size_t d = 0; d < u.args().size() && d < result.size(); ++d) {
      const HI::Interval written = HI::bounds_of_expr_in_scope(with_known_values(u.args()[d], known), scope);
      if (!written.is_bounded()) continue;  // a scatter at data: its region is its type's, not counted
      result[d].include(written);
      result[d].min = HI::simplify(result[d].min);
      result[d].max = HI::simplify(result[d].max);
    }
  }
  return result;
}

std::vector<double> stage_iterations(const HI::Function& f, const HI::Box& box,
                                     const std::map<std::string, Halide::Expr>& known) {
  const double points = std::max(0.0, box_points(box));
  std::vector<double> iterations;
  for (const HI::Definition* def : definitions(f)) {
    double n = points;
    for (const HI::ReductionVariable& rv : def->schedule().rvars()) {
      if (auto extent = constant(with_known_values(rv.extent, known))) n *= static_cast<double>(*extent);
    }
    iterations.push_back(n);
  }
  return iterations;
}

std::vector<std::map<std::string, int>> calls_per_stage(const HI::Function& f) {
  std::vector<std::map<std::string, int>> calls;
  for (const HI::Definition* def : definitions(f)) {
    CallCounter counter;
    for (const Halide::Expr& e : def->values()) e.accept(&counter);
    for (const Halide::Expr& e : def->args()) e.accept(&counter);
    if (def->predicate().defined()) def->predicate().accept(&counter);
    calls.push_back(counter.counts);
  }
  return calls;
}

}  // namespace ktune::subgraphs
