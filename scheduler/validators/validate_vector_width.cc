// Vector widths: the vectorized loop has between 2 iterations and the stage's widest
// vector (scheduler/inline_cost.h widest_vector: four native vectors of its type, at least
// 64 lanes; one native vector for a stage that gathers), and no more than the original loop
// it comes from. A wider vector than the data only shows up as a warning at
// compile time and an assertion failure at run time in Halide 14, so it is refused here.
// A Func computed at a consumer's loop vectorizes a split piece, never a whole loop, whose
// extent follows the consumer's tiles.
#include "scheduler/inline_cost.h"
#include "scheduler/validators/stage_walk.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class VectorWidthValidator : public Validator {
 public:
  std::string_view name() const override { return "vector_width"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    const auto vectorizes = [](const StageSchedule& st) { return !st.vectorize.empty(); };
    return first_stage_problem(s, a, [&](const ListedStage& ls) { return check_stage(s, a, ls); }, vectorizes);
  }

 private:
  static std::optional<std::string> check_stage(const Schedule& s, const Analysis& a, const ListedStage& ls) {
    const FuncSchedule& f = ls.func;
    const StageSchedule& st = ls.stage;
    const NestLoop* v = ls.nest.find(st.vectorize);
    if (!v) return std::nullopt;  // the structure validator reports it
    const LoopAnalysis* origin = ls.stage_analysis.find(v->origin);
    const int func = a.index_of(f.func);
    const int widest = widest_vector(a, s, func, st.stage);
    if (v->extent < 2 || v->extent > widest) {
      return f.func + ": vector width " + std::to_string(v->extent) + " is outside [2, " + std::to_string(widest) + "]" +
             (gathers(a, s, func, st.stage) ? " (it reads at a non-affine index: one scalar load per lane)" : "");
    }
    // A Func computed at a consumer's loop covers the consumer's tile, whose last one may
    // be shorter: only a split piece has a constant extent Halide can vectorize.
    if (f.compute.kind == ComputeLocation::Kind::kAt && origin && v->name == origin->name) {
      return f.func + ": a Func computed at a consumer's loop vectorizes a split piece, not the whole loop \"" +
             origin->name + "\" (its extent is the consumer's tile)";
    }
    if (origin && v->extent > origin->extent) {
      return f.func + ": vector width " + std::to_string(v->extent) + " exceeds the extent " +
             std::to_string(origin->extent) + " of \"" + origin->name + "\"";
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_vector_width_validator() { return std::make_unique<VectorWidthValidator>(); }

}  // namespace ktune::scheduler
