// Loop order: two adjacent loops of a stage swap places, keeping the vectorized loop
// innermost, the parallel loops outermost and the reduction loops in their relative
// order (a swap of two reduction pieces is never proposed).
#include <algorithm>

#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class LoopOrderMutator : public Mutator {
 public:
  std::string_view name() const override { return "loop_order"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::tuple<size_t, int, size_t>> swaps;  // (func, stage, position of the inner loop)
    for (auto [f, stage] : mutators::all_stages(s, space)) {
      const StageSchedule st = s.funcs[f].stage_or_empty(stage);
      if (st.rfactor) continue;
      const auto nest = mutators::nest_of(space, s.funcs[f], st);
      if (!nest) continue;
      const size_t n = nest->loops.size();
      for (size_t i = 0; i + 1 < n; ++i) {
        const NestLoop& a = nest->loops[i];
        const NestLoop& b = nest->loops[i + 1];
        if (a.is_reduction && b.is_reduction) continue;
        if (a.name == st.vectorize || b.name == st.vectorize) continue;
        auto parallel = [&](const std::string& l) {
          return std::find(st.parallel.begin(), st.parallel.end(), l) != st.parallel.end();
        };
        if (parallel(a.name) || parallel(b.name)) continue;
        swaps.emplace_back(f, stage, i);
      }
    }
    if (swaps.empty()) return std::nullopt;
    const auto [f, stage, i] = swaps[rng.below(static_cast<int64_t>(swaps.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    const auto nest = mutators::nest_of(space, out.funcs[f], st);
    if (!nest) return std::nullopt;
    st.order.clear();
    for (const NestLoop& l : nest->loops) st.order.push_back(l.name);
    std::swap(st.order[i], st.order[i + 1]);
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_loop_order_mutator() { return std::make_unique<LoopOrderMutator>(); }

}  // namespace ktune::scheduler
