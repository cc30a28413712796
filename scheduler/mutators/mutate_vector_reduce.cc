// Vector reduce: an associative update whose pure loop is vectorized innermost gets the
// innermost reduction loop split by 2 or 4 and that piece vectorized inside the pure
// vector (StageSchedule::vector_reduce: Halide's dot-product instructions; the piece of
// the target's instruction where it has one), or loses it again (the pure vector
// innermost once more).
#include <algorithm>

#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"
#include "scheduler/vector_reduce.h"

namespace ktune::scheduler {
namespace {

// The order of `nest` (innermost first) as names.
std::vector<std::string> order_of(const LoopNest& nest) {
  std::vector<std::string> order;
  for (const NestLoop& l : nest.loops) order.push_back(l.name);
  return order;
}

// Drops the vectorized reduction: the pure vector becomes innermost again.
void remove_vector_reduce(StageSchedule& st, const LoopNest& nest) {
  std::vector<std::string> order = order_of(nest);
  if (order.size() >= 2 && order[0] == st.vector_reduce) std::swap(order[0], order[1]);
  st.order = order;
  st.vector_reduce.clear();
}

class VectorReduceMutator : public Mutator {
 public:
  std::string_view name() const override { return "vector_reduce"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    if (space.analysis().target.is_gpu()) return std::nullopt;
    std::vector<std::pair<size_t, int>> options;
    for (auto [f, stage] : mutators::all_stages(s, space)) {
      const StageSchedule st = s.funcs[f].stage_or_empty(stage);
      const StageAnalysis& sa = space.analysis().find(s.funcs[f].func)->stages[stage];
      if (stage == 0 || st.rfactor || !sa.rfactor_ok || st.vectorize.empty()) continue;
      options.emplace_back(f, stage);
    }
    if (options.empty()) return std::nullopt;
    const auto [f, stage] = options[rng.below(static_cast<int64_t>(options.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    const auto nest = mutators::nest_of(space, out.funcs[f], st);
    if (!nest) return std::nullopt;
    if (!st.vector_reduce.empty()) {
      remove_vector_reduce(st, *nest);
      return out;
    }
    if (nest->position(st.vectorize) != 0) return std::nullopt;
    // The piece of the target's dot-product instruction where there is one.
    const FuncAnalysis& fa = *space.analysis().find(s.funcs[f].func);
    const int64_t dot_product = dot_product_factor(fa, fa.stages[stage], space.analysis().target);
    const int64_t factor = dot_product ? dot_product : rng.below(2) == 0 ? 2 : 4;
    if (!add_vector_reduce(st, *nest, factor)) return std::nullopt;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_vector_reduce_mutator() { return std::make_unique<VectorReduceMutator>(); }

}  // namespace ktune::scheduler
