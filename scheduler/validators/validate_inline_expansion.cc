// Inlining and unrolling stay within what compiles in seconds: every computed stage, with
// its inlined producers substituted (scheduler/inline_cost.h) and its unrolled loops
// copied, has at most kMaxInlinedOps arithmetic operations per iteration.
#include "scheduler/inline_cost.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// Copies of the body that the unrolled loops of `st` make.
int64_t unrolled_copies(const StageAnalysis& sa, const StageSchedule& st) {
  std::string error;
  const auto nest = build_loop_nest(sa, st, &error);
  int64_t copies = 1;
  for (const std::string& u : st.unroll) {
    const NestLoop* l = nest ? nest->find(u) : nullptr;
    if (l) copies *= std::max<int64_t>(1, l->extent);
  }
  return copies;
}

class InlineExpansionValidator : public Validator {
 public:
  std::string_view name() const override { return "inline_expansion"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (size_t i = 0; i < a.funcs.size(); ++i) {
      const FuncAnalysis& fa = a.funcs[i];
      const FuncSchedule* fs = s.find(fa.name);
      if (fs && fs->compute.kind == ComputeLocation::Kind::kInline) continue;
      for (const StageAnalysis& sa : fa.stages) {
        const int64_t ops = inlined_ops(a, s, static_cast<int>(i), sa.stage);
        const int64_t copies = fs ? unrolled_copies(sa, fs->stage_or_empty(sa.stage)) : 1;
        if (ops > kMaxInlinedOps / copies) {
          return fa.name + (sa.stage ? ".update(" + std::to_string(sa.stage - 1) + ")" : "") + ": the Funcs it inlines make " +
                 std::to_string(ops) + " operations per iteration" +
                 (copies > 1 ? " (times " + std::to_string(copies) + " unrolled copies)" : "") + ", above " +
                 std::to_string(kMaxInlinedOps) + "; compute some of them at root or at a tile instead";
        }
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_inline_expansion_validator() { return std::make_unique<InlineExpansionValidator>(); }

}  // namespace ktune::scheduler
