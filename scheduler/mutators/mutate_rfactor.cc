// rfactor: an associative reduction stage is split with rfactor (its innermost reduction
// loop split if needed; the outer piece parallel, perhaps with the Func's pure loops
// vectorized inside it, or the inner piece vectorized, perhaps where the Func is computed),
// or an rfactor is undone.
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class RFactorMutator : public Mutator {
 public:
  std::string_view name() const override { return "rfactor"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::pair<size_t, int>> options;
    for (auto [f, stage] : mutators::all_stages(s, space)) {
      const FuncAnalysis* fa = space.analysis().find(s.funcs[f].func);
      if (fa->stages[stage].rfactor_ok) options.emplace_back(f, stage);
    }
    if (options.empty()) return std::nullopt;
    const auto [f, stage] = options[rng.below(static_cast<int64_t>(options.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    if (st.rfactor) {
      st.rfactor.reset();
      mutators::drop_empty_stages(out.funcs[f]);
      return out;
    }
    const StageAnalysis& sa = space.analysis().find(out.funcs[f].func)->stages[stage];
    const LoopAnalysis* k = nullptr;
    for (const LoopAnalysis& l : sa.loops) {
      if (l.is_reduction) {
        k = &l;
        break;
      }
    }
    if (!k || k->extent < 4) return std::nullopt;
    // Start from Halide's order with only a split of the innermost reduction loop.
    int64_t factor = 2;
    while (factor * 2 <= k->extent / 2 && factor < 16 * space.analysis().target.vector_lanes && rng.chance(0.75)) factor *= 2;
    const std::string base = loop_identifier(k->name);
    StageSchedule fresh;
    fresh.stage = stage;
    fresh.splits.push_back({k->name, base + "_o", base + "_i", factor});
    const bool at_consumer = out.funcs[f].compute.kind == ComputeLocation::Kind::kAt;
    const bool vectorize_u = (at_consumer || rng.chance(0.5)) && factor <= 64;
    fresh.rfactor = RFactor{vectorize_u ? base + "_i" : base + "_o", vectorize_u};
    // Partial results made beside their consumer (a softmax row's maxima per row block).
    fresh.rfactor->at_func = at_consumer && vectorize_u && rng.chance(0.7);
    // Whole rows streamed into a vector of partial sums (a column sum).
    const LoopAnalysis* x = sa.pure_loop(0);
    const int lanes = sa.native_lanes(space.analysis().target);
    if (!vectorize_u && x && x->extent >= lanes && lanes >= 2 && rng.chance(0.5)) fresh.rfactor->pure_vector = lanes;
    for (const LoopAnalysis& l : sa.loops) {
      if (!l.is_reduction && !l.carries_dependence && out.funcs[f].compute.kind == ComputeLocation::Kind::kRoot && rng.chance(0.5)) {
        fresh.parallel = {sa.loops.back().name};
        if (sa.loops.back().is_reduction) fresh.parallel.clear();
        break;
      }
    }
    st = fresh;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_rfactor_mutator() { return std::make_unique<RFactorMutator>(); }

}  // namespace ktune::scheduler
