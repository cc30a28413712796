// Races: a loop that carries a dependence (isl, scheduler/dependences.h) may be neither
// parallel nor vectorized. A reduction loop can only run in parallel after rfactor turns
// it into a pure loop of the intermediate Func.
#include "scheduler/validators/stage_walk.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class DependenceValidator : public Validator {
 public:
  std::string_view name() const override { return "dependence"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    return first_stage_problem(s, a, [](const ListedStage& ls) -> std::optional<std::string> {
      const StageSchedule& st = ls.stage;
      std::vector<std::string> marked = st.parallel;
      if (!st.vectorize.empty()) marked.push_back(st.vectorize);
      for (const std::string& name : marked) {
        const NestLoop* l = ls.nest.find(name);
        if (l && l->carries_dependence) {
          return ls.func.func + " stage " + std::to_string(st.stage) + ": loop \"" + name +
                 "\" carries a dependence (from \"" + l->origin + "\"); running it in parallel or vectorized would race";
        }
      }
      return std::nullopt;
    });
  }
};

}  // namespace

std::unique_ptr<Validator> make_dependence_validator() { return std::make_unique<DependenceValidator>(); }

}  // namespace ktune::scheduler
