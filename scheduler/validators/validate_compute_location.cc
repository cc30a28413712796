// Compute locations: outputs are computed at root; only Funcs without update definitions
// may be inlined; a Func computed at a loop of another Func must be allowed there by
// scheduler/host_consumer.h (on a CPU: a host that reads it or that every Func reading it is
// computed in, at a loop enclosing those; on CUDA: its single consumer after inlining), the
// host must not itself be inlined, and the loop must be a loop of the host's last stage (the
// only one Halide 14 resolves) that is neither vectorized, unrolled nor fused away. The host
// itself must be computed at root (no nested compute_at chains: Halide 14's lowering
// overflows its stack on some).
#include "scheduler/gpu_mapping.h"
#include "scheduler/host_consumer.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class ComputeLocationValidator : public Validator {
 public:
  std::string_view name() const override { return "compute_location"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& f : s.funcs) {
      const FuncAnalysis& fa = *a.find(f.func);
      const ComputeLocation& c = f.compute;
      if (fa.is_output && c.kind != ComputeLocation::Kind::kRoot) return f.func + ": an output must be computed at root";
      if (c.kind == ComputeLocation::Kind::kInline && fa.has_updates()) {
        return f.func + ": a Func with an update definition cannot be inlined";
      }
      if (c.kind != ComputeLocation::Kind::kAt) continue;
      const int consumer = a.index_of(c.consumer);
      if (consumer < 0) return f.func + ": computed at unknown Func \"" + c.consumer + "\"";
      std::string innermost;  // CPU: the innermost loop every reader is computed inside
      if (a.target.is_gpu()) {
        const auto [host, use_stage] = host_consumer(a, s, a.index_of(f.func));
        if (host != consumer) {
          return f.func + ": can only be computed at a loop of its single consumer (after inlining); " + c.consumer +
                 " is not";
        }
        if (use_stage != c.consumer_stage) {
          return f.func + ": stage " + std::to_string(c.consumer_stage) + " of " + c.consumer + " does not call it";
        }
      } else {
        const AtHost host = at_host(a, s, a.index_of(f.func));
        if (host.func != consumer) {
          return f.func + ": can only be computed at a Func computed at root that reads it, or that every Func "
                 "reading it (after inlining) is computed at; " + c.consumer + " is not";
        }
        innermost = host.innermost;
      }
      if (c.consumer_stage != static_cast<int>(a.funcs[consumer].stages.size()) - 1) {
        return f.func + ": Halide 14 computes producers only at loops of the consumer's last stage";
      }
      const FuncSchedule* cs = s.find(c.consumer);
      if (!cs || cs->compute.kind == ComputeLocation::Kind::kInline) {
        return f.func + ": computed at " + c.consumer + ", which is inlined";
      }
      // Halide 14's loop partitioning recurses without end on some chains of compute_at
      // (a producer at a consumer that is itself computed at another Func's loop).
      if (cs->compute.kind == ComputeLocation::Kind::kAt) {
        return f.func + ": computed at " + c.consumer + ", which is itself computed inside another Func";
      }
      StageSchedule stage;
      stage.stage = c.consumer_stage;
      for (const StageSchedule& st : cs->stages) {
        if (st.stage == c.consumer_stage) stage = st;
      }
      std::string error;
      const auto nest = build_loop_nest(a.funcs[consumer].stages[c.consumer_stage], stage, &error);
      if (!nest || nest->position(c.loop) < 0) {
        return f.func + ": computed at loop \"" + c.loop + "\", which " + c.consumer + " stage " +
               std::to_string(c.consumer_stage) + " does not have";
      }
      if (!innermost.empty() && nest->position(c.loop) < nest->position(innermost)) {
        return f.func + ": computed at loop \"" + c.loop + "\" of " + c.consumer + ", inside loop \"" + innermost +
               "\" where a Func that reads it is computed";
      }
      if (c.loop == stage.vectorize) return f.func + ": computed inside a vectorized loop";
      for (const std::string& u : stage.unroll) {
        if (u == c.loop) return f.func + ": computed inside an unrolled loop";
      }
      if (stage.parallel.size() > 1) {
        for (const std::string& p : stage.parallel) {
          if (p == c.loop) return f.func + ": computed at loop \"" + c.loop + "\", which is fused into a parallel loop";
        }
      }
      if (stage.rfactor) return f.func + ": computed at a stage that is split with rfactor";
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_compute_location_validator() { return std::make_unique<ComputeLocationValidator>(); }

}  // namespace ktune::scheduler
