// Tile size: one split gets another factor (a power of two no larger than the loop it
// splits; at most 64 when its inner piece is vectorized; for a GPU thread loop, small
// enough that the block stays within the device's thread limit).
#include <algorithm>

#include "scheduler/mutators/mutator.h"
#include "scheduler/mutators/mutator_util.h"

namespace ktune::scheduler {
namespace {

class TileSizeMutator : public Mutator {
 public:
  std::string_view name() const override { return "tile_size"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    std::vector<std::tuple<size_t, size_t, size_t>> splits;
    for (auto [f, k] : mutators::scheduled_stages(s)) {
      for (size_t i = 0; i < s.funcs[f].stages[k].splits.size(); ++i) splits.emplace_back(f, k, i);
    }
    if (splits.empty()) return std::nullopt;
    const auto [f, k, i] = splits[rng.below(static_cast<int64_t>(splits.size()))];
    Schedule out = s;
    StageSchedule& st = out.funcs[f].stages[k];
    // Extent of the split loop when the split is applied.
    StageSchedule before = st;
    before.order.clear();
    before.splits.resize(i);
    const auto nest = mutators::nest_of(space, out.funcs[f], before);
    const NestLoop* parent = nest ? nest->find(st.splits[i].loop) : nullptr;
    if (!parent) return std::nullopt;
    int64_t cap = st.splits[i].inner == st.vectorize ? 64 : 512;
    // A thread loop's factor keeps the block within the device's thread limit.
    const auto& threads = st.gpu.threads;
    if (std::find(threads.begin(), threads.end(), st.splits[i].inner) != threads.end()) {
      const auto full = mutators::nest_of(space, out.funcs[f], st);
      if (!full) return std::nullopt;
      int64_t others = 1;
      for (const std::string& t : threads) {
        if (t != st.splits[i].inner && full->find(t)) others *= full->find(t)->extent;
      }
      cap = std::min<int64_t>(cap, space.analysis().target.max_threads_per_block / others);
    }
    std::vector<int64_t> factors;
    for (int64_t p = 2; p <= parent->extent && p <= cap; p *= 2) {
      if (p != st.splits[i].factor) factors.push_back(p);
    }
    if (factors.empty()) return std::nullopt;
    st.splits[i].factor = rng.pick(factors);
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_tile_size_mutator() { return std::make_unique<TileSizeMutator>(); }

}  // namespace ktune::scheduler
