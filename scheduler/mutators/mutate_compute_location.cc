// Compute location: a non-inlined, non-output Func moves to another legal place (root, or
// another loop of its consumer). A pack computed where its reader no longer is follows: a
// transposed copy goes to root, a copy in the input's own order (a panel) is dropped.
#include <algorithm>

#include "scheduler/input_pack.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

// Packs whose location `s` no longer offers, moved to root (transposes) or dropped (panels).
void rehome_packs(Schedule& s, const Analysis& a) {
  std::vector<InputPack> kept;
  for (InputPack p : s.packs) {
    const InputAnalysis* input = a.find_input(p.input);
    const std::vector<ComputeLocation> legal = pack_locations(a, s, p.input);
    if (!input || std::find(legal.begin(), legal.end(), p.compute) != legal.end()) {
      kept.push_back(p);
      continue;
    }
    if (p.storage == input_dims(*input)) continue;
    p.compute = ComputeLocation{};
    p.parallel = true;
    kept.push_back(p);
  }
  s.packs = kept;
}

class ComputeLocationMutator : public Mutator {
 public:
  std::string_view name() const override { return "compute_location"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::pair<size_t, std::vector<ComputeLocation>>> candidates;
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      if (s.funcs[f].compute.kind == ComputeLocation::Kind::kInline) continue;
      const int index = space.analysis().index_of(s.funcs[f].func);
      if (index < 0) continue;
      std::vector<ComputeLocation> other;
      for (const ComputeLocation& o : space.compute_options(s, index)) {
        if (o.kind != ComputeLocation::Kind::kInline && !(o == s.funcs[f].compute)) other.push_back(o);
      }
      if (!other.empty()) candidates.emplace_back(f, other);
    }
    if (candidates.empty()) return std::nullopt;
    const auto& [f, options] = candidates[rng.below(static_cast<int64_t>(candidates.size()))];
    Schedule out = s;
    out.funcs[f].compute = rng.pick(options);
    // A Func computed inside another's loops does not start its own parallel loops.
    if (out.funcs[f].compute.kind == ComputeLocation::Kind::kAt) {
      for (StageSchedule& st : out.funcs[f].stages) {
        if (!st.rfactor) st.parallel.clear();
      }
      mutators::drop_empty_stages(out.funcs[f]);
    }
    rehome_packs(out, space.analysis());
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_compute_location_mutator() { return std::make_unique<ComputeLocationMutator>(); }

}  // namespace ktune::scheduler
