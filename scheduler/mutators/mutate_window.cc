// window: one Func computed at a loop starts or stops sliding a window (stored at a loop
// around its compute loop, or where it is computed again); or, in one step, the whole
// pipeline goes into strips with its stencils as windows (image_strips.h), which a chain of
// single moves would reach only through many slower schedules.
#include "scheduler/image_strips.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/sliding_window.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

class WindowMutator : public Mutator {
 public:
  std::string_view name() const override { return "window"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    const Analysis& a = space.analysis();
    if (a.target.is_gpu()) return std::nullopt;
    if (rng.chance(0.2)) {
      Schedule strips = s;
      if (apply_image_strips(a, strips) && strips != s) return strips;
    }
    std::vector<std::pair<size_t, ComputeLocation>> moves;  // (func position, new location)
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      const ComputeLocation& c = s.funcs[f].compute;
      const FuncAnalysis* fa = a.find(s.funcs[f].func);
      if (c.kind != ComputeLocation::Kind::kAt || !fa || fa->has_updates()) continue;
      if (c.sliding()) {
        ComputeLocation unwound = c;
        unwound.store_loop.clear();
        unwound.fold_rows = 0;  // a fold belongs to a window
        moves.emplace_back(f, unwound);
        continue;
      }
      for (const ComputeLocation& w : window_locations(a, s, {c})) moves.emplace_back(f, w);
    }
    if (moves.empty()) return std::nullopt;
    const auto& [f, location] = moves[rng.below(static_cast<int64_t>(moves.size()))];
    Schedule out = s;
    out.funcs[f].compute = location;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_window_mutator() { return std::make_unique<WindowMutator>(); }

}  // namespace ktune::scheduler
