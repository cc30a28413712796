// tail: a split of a pure loop takes another tail strategy its loop allows (guard,
// shift_inwards, round_up; scheduler/tail_strategy.h).
#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"
#include "scheduler/tail_strategy.h"

namespace ktune::scheduler {
namespace {

class TailMutator : public Mutator {
 public:
  std::string_view name() const override { return "tail"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    struct Option {
      size_t func, stage, split;
      Tail tail;
    };
    std::vector<Option> options;
    for (auto [f, k] : mutators::scheduled_stages(s)) {
      const FuncSchedule& fs = s.funcs[f];
      const FuncAnalysis* fa = space.analysis().find(fs.func);
      const StageSchedule& st = fs.stages[k];
      if (!fa || st.rfactor || !st.gpu.empty()) continue;
      for (size_t i = 0; i < st.splits.size(); ++i) {
        if (!splits_pure_loop(*fa, st, st.splits[i])) continue;
        std::vector<Tail> tails = allowed_tails(space.analysis(), s, *fa, fs, st, st.splits[i]);
        tails.push_back(Tail::kGuard);
        for (Tail t : tails) {
          if (t != st.splits[i].tail) options.push_back({f, k, i, t});
        }
      }
    }
    if (options.empty()) return std::nullopt;
    const Option& o = rng.pick(options);
    Schedule out = s;
    out.funcs[o.func].stages[o.stage].splits[o.split].tail = o.tail;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_tail_mutator() { return std::make_unique<TailMutator>(); }

}  // namespace ktune::scheduler
