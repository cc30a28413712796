// pack: an input of rank >= 2 gets a packed copy (one outer dimension moved innermost, at
// root or at a loop of its host, or its own order at a loop of its host), or its pack moves
// to another location, stores another order, or is dropped.
#include <algorithm>

#include "scheduler/input_pack.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/space.h"

namespace ktune::scheduler {
namespace {

// The packs of `s` with `pack` put in (or replacing the one of its input), in input order.
std::vector<InputPack> with_pack(const Schedule& s, const Analysis& a, const InputPack& pack) {
  std::vector<InputPack> out;
  for (const InputAnalysis& in : a.inputs) {
    if (in.name == pack.input) {
      out.push_back(pack);
    } else if (const InputPack* p = find_pack(s, in.name)) {
      out.push_back(*p);
    }
  }
  return out;
}

class PackMutator : public Mutator {
 public:
  std::string_view name() const override { return "pack"; }

  std::optional<Schedule> propose(const Schedule& s, const Space& space, Rng& rng) const override {
    const Analysis& a = space.analysis();
    if (a.target.is_gpu()) return std::nullopt;
    std::vector<const InputAnalysis*> inputs;
    for (const InputAnalysis& in : a.inputs) {
      if (in.extents.size() >= 2) inputs.push_back(&in);
    }
    if (inputs.empty()) return std::nullopt;
    const InputAnalysis& input = *rng.pick(inputs);
    Schedule out = s;
    const InputPack* current = find_pack(s, input.name);
    if (!current) {
      const auto drawn = draw_pack(a, s, input, rng);
      if (!drawn) return std::nullopt;
      out.packs = with_pack(s, a, *drawn);
      return out;
    }
    const int64_t choice = rng.below(3);
    if (choice == 0) {
      out.packs.erase(std::remove(out.packs.begin(), out.packs.end(), *current), out.packs.end());
      return out;
    }
    InputPack changed = *current;
    if (choice == 1) {
      std::vector<ComputeLocation> others = pack_locations(a, s, input.name);
      others.erase(std::remove(others.begin(), others.end(), current->compute), others.end());
      if (current->storage == input_dims(input)) {  // an own-order copy stays at a loop (validate_packs.cc)
        others.erase(std::remove_if(others.begin(), others.end(),
                                    [](const ComputeLocation& l) { return l.kind == ComputeLocation::Kind::kRoot; }),
                     others.end());
      }
      if (others.empty()) return std::nullopt;
      changed.compute = rng.pick(others);
      changed.parallel = changed.compute.kind == ComputeLocation::Kind::kRoot;
    } else {
      const auto drawn = draw_pack(a, s, input, rng);
      if (!drawn || drawn->storage == current->storage) return std::nullopt;
      if (drawn->storage == input_dims(input) && current->compute.kind == ComputeLocation::Kind::kRoot) return std::nullopt;
      changed.storage = drawn->storage;
      changed.vector_width = pack_vector_width(a, input, changed.storage[0]);
    }
    out.packs = with_pack(s, a, changed);
    return out;
  }
};

}  // namespace

std::unique_ptr<Mutator> make_pack_mutator() { return std::make_unique<PackMutator>(); }

}  // namespace ktune::scheduler
