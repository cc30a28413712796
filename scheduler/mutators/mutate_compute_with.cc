// compute_with: a Func joins the loop nest of a sibling computed at the same location (the
// two share the loops from a drawn loop of the sibling's pure stage outward, and the Func
// takes the sibling's splits and order for its own pure stage, as experts write it:
// Harris's Ix computed with Iy at x), or leaves the sibling's nest again.
#include <vector>

#include "scheduler/mutators/mutator.h"
#include "scheduler/sibling_windows.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

class ComputeWithMutator : public Mutator {
 public:
  std::string_view name() const override { return "compute_with"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    if (space.analysis().target.is_gpu()) return std::nullopt;
    std::vector<size_t> joined_funcs;
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      if (!s.funcs[f].compute_with.empty()) joined_funcs.push_back(f);
    }
    const std::vector<SiblingPair> options = sibling_pairs(s, space.analysis());
    if (!joined_funcs.empty() && (options.empty() || rng.chance(0.5))) {
      Schedule out = s;
      out.funcs[rng.pick(joined_funcs)].compute_with = {};
      return out;
    }
    if (options.empty()) return std::nullopt;
    const SiblingPair pair = rng.pick(options);
    const std::vector<std::string> loops = sibling_loops(s, space.analysis(), pair);
    if (loops.empty()) return std::nullopt;
    return computed_with_sibling(s, pair, rng.pick(loops));
  }
};

}  // namespace

std::unique_ptr<Mutator> make_compute_with_mutator() { return std::make_unique<ComputeWithMutator>(); }

}  // namespace ktune::scheduler
