// Races: a loop that carries a dependence (isl, scheduler/dependences.h) may be neither
// parallel nor vectorized. A reduction loop can only run in parallel after rfactor turns
// it into a pure loop of the intermediate Func.
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class DependenceValidator : public Validator {
 public:
  std::string_view name() const override { return "dependence"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& f : s.funcs) {
      const FuncAnalysis& fa = *a.find(f.func);
      for (const StageSchedule& st : f.stages) {
        std::string error;
        const auto nest = build_loop_nest(fa.stages[st.stage], st, &error);
        if (!nest) continue;
        std::vector<std::string> marked = st.parallel;
        if (!st.vectorize.empty()) marked.push_back(st.vectorize);
        for (const std::string& name : marked) {
          const NestLoop* l = nest->find(name);
          if (l && l->carries_dependence) {
            return f.func + " stage " + std::to_string(st.stage) + ": loop \"" + name +
                   "\" carries a dependence (from \"" + l->origin + "\"); running it in parallel or vectorized would race";
          }
        }
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_dependence_validator() { return std::make_unique<DependenceValidator>(); }

}  // namespace ktune::scheduler
