// storage: a Func with a buffer of its own (not inlined, not an output) stores another of
// its pure variables innermost (a convolution's accumulator with the output channels
// contiguous, for a stage that vectorizes them), or goes back to its definition's order.
#include <algorithm>

#include "scheduler/mutators/mutator.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

// `args` (innermost first) with `innermost` moved to the front.
std::vector<std::string> with_innermost(const std::vector<std::string>& args, const std::string& innermost) {
  std::vector<std::string> order{innermost};
  for (const std::string& a : args) {
    if (a != innermost) order.push_back(a);
  }
  return order;
}

class StorageMutator : public Mutator {
 public:
  std::string_view name() const override { return "storage"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    if (space.analysis().target.is_gpu()) return std::nullopt;
    std::vector<std::pair<size_t, std::vector<std::string>>> options;  // (func position, new storage)
    for (size_t f = 0; f < s.funcs.size(); ++f) {
      const FuncSchedule& fs = s.funcs[f];
      const FuncAnalysis* fa = space.analysis().find(fs.func);
      if (!fa || fa->is_output || fa->args.size() < 2 || fs.compute.kind == ComputeLocation::Kind::kInline) continue;
      // Another order of the outer variables only: back to the definition's order.
      if (!fs.storage.empty() && fs.storage[0] == fa->args[0]) options.push_back({f, {}});
      const std::string current = fs.storage.empty() ? fa->args[0] : fs.storage[0];
      for (const std::string& var : fa->args) {
        if (var == current) continue;
        // The definition's own order is written as no storage at all (one text per schedule).
        options.push_back({f, var == fa->args[0] ? std::vector<std::string>{} : with_innermost(fa->args, var)});
      }
    }
    if (options.empty()) return std::nullopt;
    const auto& [f, storage] = rng.pick(options);
    Schedule out = s;
    out.funcs[f].storage = storage;
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_storage_mutator() { return std::make_unique<StorageMutator>(); }

}  // namespace ktune::scheduler
