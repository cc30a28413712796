// Vectorized reductions (StageSchedule::vector_reduce) only where Halide 14 can turn them
// into dot products: an associative update on a CPU, without an rfactor; the piece is a
// split of a reduction loop into 2 or 4 iterations, the innermost loop, with the stage's
// vectorized pure loop right outside it.
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// Why `st`'s vector_reduce is refused, or nullopt when it is fine (or absent).
std::optional<std::string> vector_reduce_problem(const StageAnalysis& sa, const StageSchedule& st, bool gpu) {
  if (st.vector_reduce.empty()) return std::nullopt;
  const std::string what = "vector_reduce \"" + st.vector_reduce + "\"";
  if (st.stage == 0) return what + " on a pure definition (only updates reduce)";
  if (gpu) return what + " on a GPU target";
  if (st.rfactor) return what + " together with an rfactor";
  if (!sa.rfactor_ok) return what + " on an update that is not associative";
  std::string error;
  const std::optional<LoopNest> nest = build_loop_nest(sa, st, &error);
  if (!nest) return std::nullopt;  // the structure validator names it
  const NestLoop* piece = nest->find(st.vector_reduce);
  if (!piece || !piece->is_reduction) return what + " is not a reduction loop of the stage";
  if (piece->extent != 2 && piece->extent != 4) return what + " has " + std::to_string(piece->extent) + " iterations (2 or 4)";
  if (nest->position(st.vector_reduce) != 0) return what + " is not the innermost loop";
  if (st.vectorize.empty() || nest->position(st.vectorize) != 1) {
    return what + " needs the stage's vectorized pure loop right outside it";
  }
  const NestLoop* vector = nest->find(st.vectorize);
  if (vector->is_reduction) return what + " inside a vectorized reduction loop";
  for (const std::string& u : st.unroll) {
    if (u == st.vector_reduce) return what + " is also unrolled";
  }
  return std::nullopt;
}

class VectorReduceValidator : public Validator {
 public:
  std::string_view name() const override { return "vector_reduce"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& f : s.funcs) {
      const FuncAnalysis& fa = *a.find(f.func);
      for (const StageSchedule& st : f.stages) {
        if (auto why = vector_reduce_problem(fa.stages[st.stage], st, a.target.is_gpu())) return f.func + ": " + *why;
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_vector_reduce_validator() { return std::make_unique<VectorReduceValidator>(); }

}  // namespace ktune::scheduler
