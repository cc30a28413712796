// Unroll: the inner piece of a split (2 to 16 iterations, neither vectorized nor parallel) starts or
// stops being unrolled.
#include <algorithm>

#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

// True if `loop` has a constant extent wherever its Func is computed: the inner piece of
// a split, or a piece of such a piece.
bool constant_extent(const StageSchedule& st, const std::string& loop, int depth = 0) {
  if (depth > 16) return false;
  for (const LoopSplit& sp : st.splits) {
    if (sp.inner == loop) return true;
    if (sp.outer == loop && sp.loop != loop) return constant_extent(st, sp.loop, depth + 1);
  }
  return false;
}

class UnrollMutator : public Mutator {
 public:
  std::string_view name() const override { return "unroll"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::tuple<size_t, int, std::string>> options;
    for (auto [f, stage] : mutators::all_stages(s, space)) {
      const StageSchedule st = s.funcs[f].stage_or_empty(stage);
      if (st.rfactor) continue;
      const auto nest = mutators::nest_of(space, s.funcs[f], st);
      if (!nest) continue;
      for (const NestLoop& l : nest->loops) {
        // Only split inner pieces: their extent is a constant wherever the Func is computed.
        if (l.extent < 2 || l.extent > 16 || l.name == st.vectorize || !constant_extent(st, l.name)) continue;
        if (std::find(st.parallel.begin(), st.parallel.end(), l.name) != st.parallel.end()) continue;
        options.emplace_back(f, stage, l.name);
      }
    }
    if (options.empty()) return std::nullopt;
    const auto& [f, stage, loop] = options[rng.below(static_cast<int64_t>(options.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    auto it = std::find(st.unroll.begin(), st.unroll.end(), loop);
    if (it == st.unroll.end()) {
      st.unroll.push_back(loop);
    } else {
      st.unroll.erase(it);
    }
    mutators::drop_empty_stages(out.funcs[f]);
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_unroll_mutator() { return std::make_unique<UnrollMutator>(); }

}  // namespace ktune::scheduler
