// Parallel granularity: a stage of a root Func fuses more or fewer of its outermost loops
// into its parallel loop (0 = serial, up to 3).
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class ParallelMutator : public Mutator {
 public:
  std::string_view name() const override { return "parallel"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::pair<size_t, int>> options;
    for (auto [f, stage] : mutators::all_stages(s, space)) {
      if (s.funcs[f].compute.kind == ComputeLocation::Kind::kRoot) options.emplace_back(f, stage);
    }
    if (options.empty()) return std::nullopt;
    const auto [f, stage] = options[rng.below(static_cast<int64_t>(options.size()))];
    Schedule out = s;
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    const auto nest = mutators::nest_of(space, out.funcs[f], st);
    if (!nest) return std::nullopt;
    // How many outermost loops could run in parallel: pure, no dependence, not vectorized.
    std::vector<std::string> outer;  // outermost first
    for (auto it = nest->loops.rbegin(); it != nest->loops.rend() && outer.size() < 3; ++it) {
      if (it->carries_dependence || it->is_reduction || it->name == st.vectorize) break;
      bool unrolled = false;
      for (const std::string& u : st.unroll) unrolled |= u == it->name;
      if (unrolled) break;
      outer.push_back(it->name);
    }
    if (st.rfactor) outer.resize(std::min<size_t>(outer.size(), 1));
    std::vector<int64_t> counts;
    for (size_t n = 0; n <= outer.size(); ++n) {
      if (n != st.parallel.size()) counts.push_back(static_cast<int64_t>(n));
    }
    if (counts.empty()) return std::nullopt;
    const int64_t n = rng.pick(counts);
    st.parallel.assign(outer.begin(), outer.begin() + n);
    mutators::drop_empty_stages(out.funcs[f]);
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_parallel_mutator() { return std::make_unique<ParallelMutator>(); }

}  // namespace ktune::scheduler
