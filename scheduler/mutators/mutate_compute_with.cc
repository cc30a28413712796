// compute_with: a Func joins the loop nest of a sibling computed at the same location (the
// two share the loops from a drawn loop of the sibling's pure stage outward, and the Func
// takes the sibling's splits and order for its own pure stage, as experts write it:
// Harris's Ix computed with Iy at x), or leaves the sibling's nest again.
#include <vector>

#include "scheduler/loop_nest.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

// A Func position in the schedule and the sibling it would join.
struct Pairing {
  size_t func = 0;
  size_t sibling = 0;
};

// Funcs that may join a sibling: both without updates and without compute_with, computed
// at the same location (not inlined), over the same pure variables.
std::vector<Pairing> pairings(const Schedule& s, const Analysis& a) {
  std::vector<const FuncAnalysis*> analyses;  // per schedule position, looked up once
  for (const FuncSchedule& fs : s.funcs) analyses.push_back(a.find(fs.func));
  std::vector<Pairing> out;
  for (size_t f = 0; f < s.funcs.size(); ++f) {
    for (size_t g = 0; g < s.funcs.size(); ++g) {
      const FuncSchedule &fs = s.funcs[f], &gs = s.funcs[g];
      const FuncAnalysis *fa = analyses[f], *ga = analyses[g];
      if (f == g || !fa || !ga || fa->has_updates() || ga->has_updates() || fa->args != ga->args) continue;
      if (!fs.compute_with.empty() || !gs.compute_with.empty()) continue;
      if (fs.compute.kind == ComputeLocation::Kind::kInline || !(fs.compute == gs.compute)) continue;
      out.push_back({f, g});
    }
  }
  return out;
}

// `s` with Func `p.func` computed with `p.sibling` at one of the sibling's loops.
std::optional<Schedule> joined(const Schedule& s, const Analysis& a, const Pairing& p, Rng& rng) {
  Schedule out = s;
  FuncSchedule& fs = out.funcs[p.func];
  const FuncSchedule& sibling = out.funcs[p.sibling];
  StageSchedule shared = sibling.stage_or_empty(0);
  std::string error;
  const auto nest = build_loop_nest(a.find(sibling.func)->stages[0], shared, &error);
  if (!nest || nest->loops.empty()) return std::nullopt;
  std::vector<StageSchedule> stages = {shared};
  for (const StageSchedule& st : fs.stages) {
    if (st.stage != 0) stages.push_back(st);
  }
  fs.stages = stages;
  fs.compute_with = {sibling.func, rng.pick(nest->loops).name};
  return out;
}

class ComputeWithMutator : public Mutator {
 public:
  std::string_view name() const override { return "compute_with"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    if (space.analysis().target.is_gpu()) return std::nullopt;
    std::vector<size_t> joined_funcs;
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      if (!s.funcs[f].compute_with.empty()) joined_funcs.push_back(f);
    }
    const std::vector<Pairing> options = pairings(s, space.analysis());
    if (!joined_funcs.empty() && (options.empty() || rng.chance(0.5))) {
      Schedule out = s;
      out.funcs[rng.pick(joined_funcs)].compute_with = {};
      return out;
    }
    if (options.empty()) return std::nullopt;
    return joined(s, space.analysis(), rng.pick(options), rng);
  }
};

}  // namespace

std::unique_ptr<Mutator> make_compute_with_mutator() { return std::make_unique<ComputeWithMutator>(); }

}  // namespace ktune::scheduler
