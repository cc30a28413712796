// Inline / root: a Func without update definitions that is not an output is inlined into
// its consumers, or computed at root (vectorized along its innermost loop).
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"
#include "scheduler/stage_template.h"

namespace ktune::scheduler {
namespace {

class InlineMutator : public Mutator {
 public:
  std::string_view name() const override { return "inline"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<size_t> candidates;
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      const FuncAnalysis* fa = space.analysis().find(s.funcs[f].func);
      if (!fa || fa->is_output || fa->has_updates()) continue;
      // A Func that hosts another's computation cannot be inlined.
      bool hosts = false;
      for (const FuncSchedule& g : s.funcs) hosts |= g.compute.kind == ComputeLocation::Kind::kAt && g.compute.consumer == s.funcs[f].func;
      if (s.funcs[f].compute.kind != ComputeLocation::Kind::kInline && hosts) continue;
      candidates.push_back(f);
    }
    if (candidates.empty()) return std::nullopt;
    const size_t f = candidates[rng.below(static_cast<int64_t>(candidates.size()))];
    Schedule out = s;
    FuncSchedule& fs = out.funcs[f];
    if (fs.compute.kind == ComputeLocation::Kind::kInline) {
      fs.compute = ComputeLocation{ComputeLocation::Kind::kRoot, "", 0, ""};
      const FuncAnalysis& fa = *space.analysis().find(fs.func);
      TilingChoice c;
      c.vector_width = fa.stages[0].native_lanes(space.analysis().target);
      c.parallel_loops = 1;
      fs.stages = {make_stage(fa.stages[0], c)};
      mutators::drop_empty_stages(fs);
    } else {
      fs.compute = ComputeLocation{ComputeLocation::Kind::kInline, "", 0, ""};
      fs.stages.clear();
      fs.storage.clear();  // an inlined Func has no buffer
      fs.compute_with = {};  // nor loops to share
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_inline_mutator() { return std::make_unique<InlineMutator>(); }

}  // namespace ktune::scheduler
