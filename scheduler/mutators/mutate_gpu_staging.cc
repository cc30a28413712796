// GPU staging (CUDA targets): one Func moves between being a kernel of its own and being
// staged at its consumer's block level, or a Func staged at a block switches between
// explicit shared memory and Halide's choice. Its thread loops stay as they are; a kernel
// gets its block loops from the loops outside its thread loops, a staged Func loses them.
#include "scheduler/gpu_mapping.h"
#include "scheduler/host_consumer.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class GpuStagingMutator : public Mutator {
 public:
  std::string_view name() const override { return "gpu_staging"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    const Analysis& a = space.analysis();
    if (!a.target.is_gpu()) return std::nullopt;
    std::vector<size_t> candidates;
    for (size_t i = 0; i < s.funcs.size(); ++i) {
      const FuncAnalysis* fa = a.find(s.funcs[i].func);
      if (!fa || fa->is_output || s.funcs[i].compute.kind == ComputeLocation::Kind::kInline) continue;
      bool rfactored = false;  // a Func split with rfactor stays a kernel
      for (const StageSchedule& st : s.funcs[i].stages) rfactored |= st.rfactor.has_value();
      if (rfactored) continue;
      candidates.push_back(i);
    }
    if (candidates.empty()) return std::nullopt;
    const size_t i = rng.pick(candidates);
    Schedule out = s;
    FuncSchedule& f = out.funcs[i];
    const FuncAnalysis& fa = *a.find(f.func);
    if (f.compute.kind == ComputeLocation::Kind::kAt) {
      const int host = a.index_of(f.compute.consumer);
      const StageSchedule hst = host >= 0 ? s.funcs[host].stage_or_empty(f.compute.consumer_stage) : StageSchedule{};
      if (!hst.gpu.blocks.empty() && f.compute.loop == hst.gpu.blocks[0] && rng.chance(0.5)) {
        StageSchedule& zero = mutators::stage_entry(f, 0);
        zero.gpu.memory = zero.gpu.memory == "shared" ? "" : "shared";
        mutators::drop_empty_stages(f);
        return out;
      }
      // Back to a kernel: the loops outside the thread loops become block loops.
      f.compute = ComputeLocation{};
      for (const StageAnalysis& sa : fa.stages) {
        StageSchedule& st = mutators::stage_entry(f, sa.stage);
        st.gpu.memory.clear();
        st.gpu.blocks.clear();
        const auto nest = mutators::nest_of(space, f, st);
        std::string error;
        const auto g = nest ? gpu_levels(*nest, st.gpu, &error) : std::nullopt;
        if (!g || g->outermost_thread < 0) return std::nullopt;
        for (int p = g->outermost_thread + 1; p < static_cast<int>(nest->loops.size()) && st.gpu.blocks.size() < 3; ++p) {
          st.gpu.blocks.push_back(nest->loops[p].name);
        }
      }
      return out;
    }
    // A kernel staged at its consumer's innermost block loop, in shared memory.
    const auto [host, use_stage] = host_consumer(a, s, static_cast<int>(i));
    if (host < 0 || s.funcs[host].compute.kind != ComputeLocation::Kind::kRoot ||
        use_stage != static_cast<int>(a.funcs[host].stages.size()) - 1) {
      return std::nullopt;
    }
    const StageSchedule hst = s.funcs[host].stage_or_empty(use_stage);
    if (hst.gpu.blocks.empty() || hst.rfactor) return std::nullopt;  // an rfactor's intermediate reads it
    f.compute = ComputeLocation{ComputeLocation::Kind::kAt, a.funcs[host].name, use_stage, hst.gpu.blocks[0]};
    for (StageSchedule& st : f.stages) st.gpu.blocks.clear();
    mutators::stage_entry(f, 0).gpu.memory = "shared";
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_gpu_staging_mutator() { return std::make_unique<GpuStagingMutator>(); }

}  // namespace ktune::scheduler
