#include "subgraphs/internal/arithmetic_count.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

// Counts arithmetic nodes; accesses to Funcs and buffers are visited without their index
// arguments, which compute addresses rather than values.
class ArithmeticCounter : public HI::IRVisitor {
 public:
  double count = 0;

 protected:
  using HI::IRVisitor::visit;

  void visit(const HI::Add* op) override { binary(op->a, op->b); }
  void visit(const HI::Sub* op) override { binary(op->a, op->b); }
  void visit(const HI::Mul* op) override { binary(op->a, op->b); }
  void visit(const HI::Div* op) override { binary(op->a, op->b); }
  void visit(const HI::Mod* op) override { binary(op->a, op->b); }
  void visit(const HI::Min* op) override { binary(op->a, op->b); }
  void visit(const HI::Max* op) override { binary(op->a, op->b); }
  void visit(const HI::Select* op) override {
    ++count;
    HI::IRVisitor::visit(op);
  }
  void visit(const HI::Call* op) override {
    const bool access = op->call_type == HI::Call::Halide || op->call_type == HI::Call::Image;
    if (access) return;
    if (op->call_type == HI::Call::PureExtern) ++count;  // exp_f32, sqrt_f32, floor_f32, ...
    HI::IRVisitor::visit(op);
  }

 private:
  void binary(const Halide::Expr& a, const Halide::Expr& b) {
    ++count;
    a.accept(this);
    b.accept(this);
  }
};

double points_of(const StageInfo& stage) {
  double points = 1;
  for (const LoopInfo& l : stage.pure_loops) {
    if (l.extent < 0) return 0;
    points *= static_cast<double>(l.extent);
  }
  for (const LoopInfo& l : stage.reduction_loops) {
    if (l.extent < 0) return 0;
    points *= static_cast<double>(l.extent);
  }
  return points;
}

}  // namespace

double arithmetic_in(const Halide::Expr& value) {
  if (!value.defined()) return 0;
  ArithmeticCounter counter;
  value.accept(&counter);
  return counter.count;
}

double count_pipeline_arithmetic(const BuiltPipeline& built, const std::vector<StageInfo>& stages) {
  double total = 0;
  size_t next = 0;
  for (const Halide::Func& func : pipeline_funcs(built)) {
    const HI::Function f = func.function();
    std::vector<const HI::Definition*> definitions = {&f.definition()};
    for (const HI::Definition& u : f.updates()) definitions.push_back(&u);
    for (const HI::Definition* def : definitions) {
      if (next >= stages.size()) return total;
      double per_point = 0;
      for (const Halide::Expr& v : def->values()) per_point += arithmetic_in(v);
      total += per_point * points_of(stages[next++]);
    }
  }
  return total;
}

}  // namespace ktune::subgraphs
