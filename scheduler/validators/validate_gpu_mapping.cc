// GPU mapping (CUDA targets): every stage of a Func computed at root is a kernel, with 1-3
// block loops outside 1-3 thread loops and its reduction loops inside the thread loops. A
// Func computed inside a consumer's block (between its block and thread loops) maps its
// own loops to threads and no blocks; one computed inside a thread runs serially in that
// thread; none is computed outside a consumer's block loops. CPU decisions (parallel,
// vectorize, rfactor's vectorize_u) do not apply. Shared memory is for Funcs staged at a
// block, registers for Funcs computed inside a thread. A reduction split with rfactor is a
// kernel whose intermediate is a kernel too (scheduler/gpu_rfactor.h): every loop of the
// intermediate maps to its 1-3 thread loops (u among them) or its 1-3 block loops.
#include <algorithm>
#include <set>

#include "scheduler/gpu_mapping.h"
#include "scheduler/gpu_rfactor.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

enum class Level { kKernel, kBlock, kThread };

class GpuMappingValidator : public Validator {
 public:
  std::string_view name() const override { return "gpu_mapping"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    if (!a.target.is_gpu()) return std::nullopt;
    for (const FuncSchedule& f : s.funcs) {
      if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
      const FuncAnalysis& fa = *a.find(f.func);
      Level level = Level::kKernel;
      if (f.compute.kind == ComputeLocation::Kind::kAt) {
        const auto l = level_of(s, a, f);
        if (!l) return f.func + ": computed at \"" + f.compute.loop + "\" of " + f.compute.consumer +
                       ", outside its GPU block loops (or " + f.compute.consumer + " is not mapped to the GPU)";
        level = *l;
      }
      for (const StageAnalysis& sa : fa.stages) {
        const StageSchedule st = f.stage_or_empty(sa.stage);
        const std::string where = f.func + " stage " + std::to_string(sa.stage) + ": ";
        if (!st.parallel.empty()) return where + "parallel loops on a GPU target (map them to blocks)";
        if (!st.vectorize.empty()) return where + "a vectorized loop on a GPU target";
        if (st.rfactor) {
          if (auto e = check_rfactor(sa, st, level)) return where + *e;
        }
        if (!st.gpu.memory.empty()) {
          if (sa.stage != 0) return where + "GPU memory is set on stage 0 only";
          if (st.gpu.memory != "shared" && st.gpu.memory != "register") {
            return where + "unknown GPU memory \"" + st.gpu.memory + "\" (expected shared or register)";
          }
          if (st.gpu.memory == "shared" && level != Level::kBlock) {
            return where + "shared memory is for Funcs computed at a consumer's block level";
          }
          if (st.gpu.memory == "register" && level != Level::kThread) {
            return where + "register memory is for Funcs computed inside a consumer's thread";
          }
        }
        std::string error;
        const auto nest = build_loop_nest(sa, st, &error);
        if (!nest) return where + error;
        const auto g = gpu_levels(*nest, st.gpu, &error);
        if (!g) return where + error;
        const size_t nb = st.gpu.blocks.size(), nt = st.gpu.threads.size();
        if (level == Level::kThread) {
          if (nb || nt) return where + "computed inside a GPU thread, so its loops cannot be mapped to blocks or threads";
          continue;
        }
        if (nt < 1 || nt > 3) return where + "needs 1 to 3 GPU thread loops, has " + std::to_string(nt);
        if (level == Level::kBlock && nb) return where + "computed inside a GPU block, so it has no block loops";
        if (level == Level::kKernel && (nb < 1 || nb > 3)) {
          return where + "a kernel needs 1 to 3 GPU block loops, has " + std::to_string(nb);
        }
        if (nb && g->innermost_block <= g->outermost_thread) return where + "block loops must be outside the thread loops";
        for (int i = g->outermost_thread + 1; i < static_cast<int>(nest->loops.size()); ++i) {
          if (nest->loops[i].is_reduction) {
            return where + "reduction loop \"" + nest->loops[i].name + "\" must be inside the GPU thread loops";
          }
        }
        for (const auto* loops : {&st.gpu.threads, &st.gpu.blocks}) {
          for (const std::string& name : *loops) {
            const NestLoop& l = *nest->find(name);
            if (l.is_reduction) return where + "reduction loop \"" + name + "\" cannot be a GPU block or thread loop";
            if (l.carries_dependence) return where + "GPU loop \"" + name + "\" carries a dependence (its iterations would race)";
            for (const std::string& u : st.unroll) {
              if (u == name) return where + "GPU loop \"" + name + "\" cannot be unrolled";
            }
          }
        }
      }
    }
    return std::nullopt;
  }

 private:
  // The intermediate of a GPU rfactor: a kernel of its own, with every loop mapped.
  static std::optional<std::string> check_rfactor(const StageAnalysis& sa, const StageSchedule& st, Level level) {
    const RFactor& rf = *st.rfactor;
    if (!rf.on_gpu()) return "rfactor on a GPU target needs the intermediate's GPU mapping (rfactor.gpu)";
    if (rf.vectorize_u) return "rfactor.vectorize_u is a CPU decision (map u to GPU threads)";
    if (rf.at_func || rf.pure_vector) return "rfactor.at_func and rfactor.pure_vector are CPU decisions";
    if (!rf.gpu.memory.empty()) return "the rfactor intermediate has no GPU memory setting";
    if (level != Level::kKernel) return "a Func split with rfactor on a GPU is computed at root (a kernel of its own)";
    std::string error;
    const auto nest = intermediate_loop_nest(sa, st, &error);
    if (!nest) return error;
    const size_t nt = rf.gpu.threads.size(), nb = rf.gpu.blocks.size();
    if (nt < 1 || nt > 3) return "the rfactor intermediate needs 1 to 3 GPU thread loops, has " + std::to_string(nt);
    if (nb < 1 || nb > 3) return "the rfactor intermediate needs 1 to 3 GPU block loops, has " + std::to_string(nb);
    std::set<std::string> mapped;
    for (const auto* loops : {&rf.gpu.threads, &rf.gpu.blocks}) {
      for (const std::string& name : *loops) {
        if (!nest->find(name)) return "the rfactor intermediate has no loop \"" + name + "\"";
        if (!mapped.insert(name).second) return "the rfactor intermediate maps loop \"" + name + "\" twice";
      }
    }
    if (std::find(rf.gpu.threads.begin(), rf.gpu.threads.end(), "u") == rf.gpu.threads.end()) {
      return "the rfactor intermediate maps u to GPU threads";
    }
    for (const NestLoop& l : nest->loops) {
      if (!mapped.count(l.name)) {
        return "the rfactor intermediate's loop \"" + l.name + "\" is mapped to neither GPU blocks nor threads";
      }
    }
    return std::nullopt;
  }

  // Where a Func computed at a consumer's loop runs: in a block (at or inside a block loop,
  // outside the thread loops) or in a thread; nullopt outside the blocks or unmapped.
  static std::optional<Level> level_of(const Schedule& s, const Analysis& a, const FuncSchedule& f) {
    const int consumer = a.index_of(f.compute.consumer);
    const FuncSchedule* cs = s.find(f.compute.consumer);
    if (consumer < 0 || !cs) return std::nullopt;
    const int stage = f.compute.consumer_stage;
    if (stage >= static_cast<int>(a.funcs[consumer].stages.size())) return std::nullopt;
    const StageSchedule st = cs->stage_or_empty(stage);
    std::string error;
    const auto nest = build_loop_nest(a.funcs[consumer].stages[stage], st, &error);
    if (!nest) return std::nullopt;
    const auto g = gpu_levels(*nest, st.gpu, &error);
    if (!g || g->innermost_block < 0 || g->innermost_thread < 0) return std::nullopt;
    const int p = nest->position(f.compute.loop);
    if (p < 0 || p > g->innermost_block) return std::nullopt;
    return p <= g->outermost_thread ? Level::kThread : Level::kBlock;
  }
};

}  // namespace

std::unique_ptr<Validator> make_gpu_mapping_validator() { return std::make_unique<GpuMappingValidator>(); }

}  // namespace ktune::scheduler
