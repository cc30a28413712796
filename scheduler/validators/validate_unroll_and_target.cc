// Unrolling stays within bounds (each unrolled loop at most 32 iterations, at most 256
// copies of a stage's body), and GPU mappings (of a stage, or of an rfactor's
// intermediate) appear only on GPU targets.
#include "scheduler/validators/stage_walk.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class UnrollValidator : public Validator {
 public:
  std::string_view name() const override { return "unroll"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    return first_stage_problem(s, a, [](const ListedStage& ls) -> std::optional<std::string> {
      int64_t copies = 1;
      for (const std::string& u : ls.stage.unroll) {
        const NestLoop* l = ls.nest.find(u);
        if (!l) continue;
        if (l->extent > 32) return ls.func.func + ": unrolling \"" + u + "\" would copy the body " + std::to_string(l->extent) + " times (at most 32)";
        copies *= l->extent;
      }
      if (copies > 256) return ls.func.func + ": unrolled loops copy the body " + std::to_string(copies) + " times (at most 256)";
      return std::nullopt;
    });
  }
};

class TargetValidator : public Validator {
 public:
  std::string_view name() const override { return "target"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    const bool gpu = a.target.is_gpu();
    for (const FuncSchedule& f : s.funcs) {
      for (const StageSchedule& st : f.stages) {
        if (!gpu && !st.gpu.empty()) return f.func + ": a GPU mapping on a CPU target";
        if (!gpu && st.rfactor && st.rfactor->on_gpu()) return f.func + ": a GPU rfactor on a CPU target";
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_unroll_validator() { return std::make_unique<UnrollValidator>(); }
std::unique_ptr<Validator> make_target_validator() { return std::make_unique<TargetValidator>(); }

}  // namespace ktune::scheduler
