// GPU rfactor (CUDA targets): a kernel's starved reduction stage (the sampler's rule in
// scheduler/gpu_rfactor.h; a reduction with enough outputs gains nothing from it) is split
// with rfactor, or its rfactor gets another shape (factor F, x-threads beside u, threads of
// what remains), or the rfactor is undone (the reduction serial in each thread again, in
// the heuristic's blocks of threads). Stages that host another Func's computation are left
// alone: nothing is computed at a stage split with rfactor.
#include "scheduler/gpu_mapping.h"
#include "scheduler/gpu_rfactor.h"
#include "scheduler/gpu_stage_template.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class GpuRFactorMutator : public Mutator {
 public:
  std::string_view name() const override { return "gpu_rfactor"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    const Analysis& a = space.analysis();
    if (!a.target.is_gpu()) return std::nullopt;
    std::vector<std::pair<size_t, int>> options;
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      if (s.funcs[f].compute.kind != ComputeLocation::Kind::kRoot) continue;
      const FuncAnalysis* fa = a.find(s.funcs[f].func);
      if (!fa) continue;
      for (const StageAnalysis& sa : fa->stages) {
        if (!gpu_reduction_starved(*fa, sa, a.target) || hosts_a_func(s, fa->name, sa.stage)) continue;
        options.emplace_back(f, sa.stage);
      }
    }
    if (options.empty()) return std::nullopt;
    const auto [f, stage] = rng.pick(options);
    Schedule out = s;
    const FuncAnalysis& fa = *a.find(out.funcs[f].func);
    const StageAnalysis& sa = fa.stages[stage];
    StageSchedule& st = mutators::stage_entry(out.funcs[f], stage);
    if (st.rfactor && rng.chance(0.4)) {
      st = make_gpu_stage(sa, heuristic_gpu_tiling(sa), true);
      return out;
    }
    // Another shape (or a first one): redraw until it differs.
    for (int tries = 0; tries < 8; ++tries) {
      StageSchedule fresh = make_gpu_rfactor_stage(sa, sampled_gpu_rfactor(fa, sa, a.target, rng));
      if (!(fresh == st)) {
        st = fresh;
        return out;
      }
    }
    return std::nullopt;
  }

 private:
  // Whether some Func is computed at a loop of `func`'s stage `stage`.
  static bool hosts_a_func(const Schedule& s, const std::string& func, int stage) {
    for (const FuncSchedule& g : s.funcs) {
      if (g.compute.kind == ComputeLocation::Kind::kAt && g.compute.consumer == func && g.compute.consumer_stage == stage) {
        return true;
      }
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_gpu_rfactor_mutator() { return std::make_unique<GpuRFactorMutator>(); }

}  // namespace ktune::scheduler
