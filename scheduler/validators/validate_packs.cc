// Packs: each names an input of the pipeline once, stores a permutation of its dimensions
// (its own order only at a loop: a copy of the whole input in its own order gains nothing),
// is computed at root or at a loop the input's one host offers (input_pack.h), vectorizes
// its copy no wider than the target allows and than its innermost stored dimension, and
// runs in parallel only at root. A pack is a CPU decision.
#include <algorithm>
#include <set>

#include "scheduler/input_pack.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

bool reads_input(const Analysis& a, const std::string& input) {
  for (const FuncAnalysis& f : a.funcs) {
    for (const StageAnalysis& sa : f.stages) {
      for (const ProducerUse& use : sa.uses) {
        if (use.func < 0 && use.name == input) return true;
      }
    }
  }
  return false;
}

std::optional<std::string> check_pack(const InputPack& p, const Schedule& s, const Analysis& a) {
  const InputAnalysis* input = a.find_input(p.input);
  if (!input) return "pack of \"" + p.input + "\": the pipeline has no such input";
  const std::string where = "pack of " + p.input + ": ";
  if (!reads_input(a, p.input)) return where + "no Func reads the input";
  std::vector<std::string> dims = input_dims(*input), storage = p.storage;
  std::sort(dims.begin(), dims.end());
  std::sort(storage.begin(), storage.end());
  if (storage != dims) return where + "storage must list each of the input's " + std::to_string(dims.size()) + " dimensions once";
  if (p.storage == input_dims(*input) && p.compute.kind == ComputeLocation::Kind::kRoot) {
    return where + "a copy in the input's own order is made per loop of its host, not at root";
  }
  const std::vector<ComputeLocation> legal = pack_locations(a, s, p.input);
  if (std::find(legal.begin(), legal.end(), p.compute) == legal.end()) {
    return where + "it cannot be computed at " +
           (p.compute.kind == ComputeLocation::Kind::kAt ? p.compute.consumer + "." + p.compute.loop : to_string(p.compute.kind)) +
           " (root, or a loop of the one Func that reads the input)";
  }
  if (p.vector_width) {
    // Four native vectors of the element type, at least 64 lanes, as for a stage's loops.
    const int64_t widest = std::max<int64_t>(64, 4 * a.target.vector_lanes * 4 / std::max(1, input->element_bytes));
    const int64_t extent = input->extents[input_dim_index(*input, p.storage[0])];
    if (p.vector_width > extent || p.vector_width > widest) {
      return where + "vector_width " + std::to_string(p.vector_width) + " is wider than \"" + p.storage[0] + "\" (" +
             std::to_string(extent) + ") or the target's widest vector";
    }
  }
  if (p.parallel && p.compute.kind != ComputeLocation::Kind::kRoot) return where + "only a pack at root runs in parallel";
  return std::nullopt;
}

class PackValidator : public Validator {
 public:
  std::string_view name() const override { return "packs"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    if (!s.packs.empty() && a.target.is_gpu()) return std::string("input packs are a CPU decision");
    std::set<std::string> seen;
    for (const InputPack& p : s.packs) {
      if (!seen.insert(p.input).second) return "input \"" + p.input + "\" is packed twice";
      if (auto error = check_pack(p, s, a)) return error;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_pack_validator() { return std::make_unique<PackValidator>(); }

}  // namespace ktune::scheduler
