// GPU limits (CUDA targets), from the device description: the threads of a block (the
// product of a kernel's thread-loop extents, and of each Func staged inside its blocks)
// stay within the device's maximum; the Funcs staged in shared memory at a kernel's block
// level fit in the shared memory of a block (footprints from isl, scheduler/gpu_footprint.h);
// and a thread keeps few enough values live (unrolled copies plus Funcs held in registers)
// for the register file. The intermediate of a GPU rfactor is a kernel too: its threads
// per block stay within the maximum. Runs after the gpu_mapping validator.
#include "scheduler/gpu_footprint.h"
#include "scheduler/gpu_mapping.h"
#include "scheduler/gpu_rfactor.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// Values one thread may keep live before spilling: 255 registers per thread, with room for
// addresses and loop counters.
constexpr int64_t kMaxLiveValuesPerThread = 128;

class GpuLimitsValidator : public Validator {
 public:
  std::string_view name() const override { return "gpu_limits"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    if (!a.target.is_gpu()) return std::nullopt;
    const int64_t max_threads = a.target.max_threads_per_block;
    const int64_t max_shared = a.target.shared_bytes_per_block;
    for (const FuncSchedule& f : s.funcs) {
      if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
      const FuncAnalysis& fa = *a.find(f.func);
      for (const StageAnalysis& sa : fa.stages) {
        const StageSchedule st = f.stage_or_empty(sa.stage);
        const std::string where = f.func + " stage " + std::to_string(sa.stage) + ": ";
        std::string error;
        const auto nest = build_loop_nest(sa, st, &error);
        if (!nest) continue;
        const auto g = gpu_levels(*nest, st.gpu, &error);
        if (!g) continue;
        if (g->threads > max_threads) {
          return where + std::to_string(g->threads) + " threads per block exceed the device's limit of " +
                 std::to_string(max_threads);
        }
        if (st.rfactor && st.rfactor->on_gpu()) {
          if (const auto inest = intermediate_loop_nest(sa, st, &error)) {
            int64_t threads = 1;
            for (const std::string& t : st.rfactor->gpu.threads) {
              if (const NestLoop* l = inest->find(t)) threads *= l->extent;
            }
            if (threads > max_threads) {
              return where + "the rfactor intermediate's " + std::to_string(threads) +
                     " threads per block exceed the device's limit of " + std::to_string(max_threads);
            }
          }
        }
        if (f.compute.kind != ComputeLocation::Kind::kRoot || g->innermost_block < 0) continue;
        // What this kernel stages at its block level and keeps in its threads.
        int64_t shared = 0;
        int64_t live = 1;
        for (const std::string& u : st.unroll) {
          if (const NestLoop* l = nest->find(u); l && nest->position(u) < g->innermost_thread) live *= l->extent;
        }
        for (const FuncSchedule& p : s.funcs) {
          if (p.compute.kind != ComputeLocation::Kind::kAt || p.compute.consumer != f.func ||
              p.compute.consumer_stage != sa.stage) {
            continue;
          }
          const int pos = nest->position(p.compute.loop);
          if (pos < 0 || pos > g->innermost_block) continue;
          const std::string memory = p.stage_or_empty(0).gpu.memory;
          const auto elements = producer_footprint(a, s, a.index_of(p.func), p.compute);
          if (pos > g->outermost_thread) {
            if (memory == "register") continue;  // the mapping validator rejects it
            if (!elements) {
              if (memory == "shared") return p.func + ": its shared-memory footprint at " + f.func + " is unknown (non-affine access)";
              continue;
            }
            shared += *elements * a.funcs[a.index_of(p.func)].element_bytes;
          } else if (elements) {
            live += *elements;
          }
        }
        if (shared > max_shared) {
          return where + "Funcs staged in shared memory at its block level need " + std::to_string(shared) +
                 " bytes per block, over the device's limit of " + std::to_string(max_shared);
        }
        if (live > kMaxLiveValuesPerThread) {
          return where + "register pressure: about " + std::to_string(live) + " live values per thread (at most " +
                 std::to_string(kMaxLiveValuesPerThread) + ")";
        }
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_gpu_limits_validator() { return std::make_unique<GpuLimitsValidator>(); }

}  // namespace ktune::scheduler
