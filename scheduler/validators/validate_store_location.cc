// Sliding windows (a Func stored at a loop around the one it is computed at): CPU targets
// only, for Funcs without update definitions, at a loop of the same consumer stage that
// scheduler/sliding_window.h accepts.
#include "scheduler/sliding_window.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class StoreLocationValidator : public Validator {
 public:
  std::string_view name() const override { return "store_location"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& f : s.funcs) {
      const ComputeLocation& c = f.compute;
      if (c.store_loop.empty()) continue;
      if (c.kind != ComputeLocation::Kind::kAt) return f.func + ": a store loop is only for a Func computed at a loop";
      if (a.target.is_gpu()) return f.func + ": sliding windows are for CPU targets";
      if (a.find(f.func)->has_updates()) return f.func + ": Halide slides windows of Funcs without updates only";
      const int consumer = a.index_of(c.consumer);
      const FuncSchedule* cs = s.find(c.consumer);
      if (consumer < 0 || !cs) return f.func + ": stored at unknown Func \"" + c.consumer + "\"";
      const StageSchedule stage = cs->stage_or_empty(c.consumer_stage);
      std::string error;
      const auto nest = build_loop_nest(a.funcs[consumer].stages[c.consumer_stage], stage, &error);
      if (!nest) return f.func + ": " + error;
      if (const auto problem = window_problem(c, stage, *nest)) return f.func + ": " + *problem;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_store_location_validator() { return std::make_unique<StoreLocationValidator>(); }

}  // namespace ktune::scheduler
