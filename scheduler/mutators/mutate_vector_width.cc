// Vector width: the vectorized loop of a stage gets another width (half, the native
// width, or two or four native vectors), or a stage stops or starts vectorizing its
// innermost loop.
#include "scheduler/inline_cost.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class VectorWidthMutator : public Mutator {
 public:
  std::string_view name() const override { return "vector_width"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    const auto stages = mutators::all_stages(s, space);
    if (stages.empty()) return std::nullopt;
    const auto [f, stage] = stages[rng.below(static_cast<int64_t>(stages.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    const StageAnalysis& sa = space.analysis().find(out.funcs[f].func)->stages[stage];
    const int lanes = sa.native_lanes(space.analysis().target);
    const int widest = widest_vector(space.analysis(), s, space.analysis().index_of(out.funcs[f].func), stage);
    if (!st.vectorize.empty()) {
      // Change the width of the split producing the vectorized loop, or stop vectorizing.
      for (LoopSplit& split : st.splits) {
        if (split.inner != st.vectorize) continue;
        std::vector<int64_t> widths;
        for (int64_t w : {int64_t{lanes / 2}, int64_t{lanes}, int64_t{2 * lanes}, int64_t{4 * lanes}}) {
          if (w >= 2 && w <= widest && w != split.factor) widths.push_back(w);
        }
        if (!widths.empty() && rng.chance(0.8)) {
          split.factor = rng.pick(widths);
          return out;
        }
      }
      st.vectorize.clear();
      mutators::drop_empty_stages(out.funcs[f]);
      return out;
    }
    // Start vectorizing the innermost loop if it is a pure piece of at most `widest` iterations.
    const auto nest = mutators::nest_of(space, out.funcs[f], st);
    if (!nest || nest->loops.empty()) return std::nullopt;
    const NestLoop& inner = nest->loops[0];
    if (inner.is_reduction || inner.extent < 2 || inner.extent > widest || inner.carries_dependence) return std::nullopt;
    for (const std::string& u : st.unroll) {
      if (u == inner.name) return std::nullopt;
    }
    st.vectorize = inner.name;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_vector_width_mutator() { return std::make_unique<VectorWidthMutator>(); }

}  // namespace ktune::scheduler
