#include "scheduler/input_pack.h"

#include <algorithm>

#include "scheduler/host_consumer.h"

namespace ktune::scheduler {

std::vector<std::string> input_dims(const InputAnalysis& input) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < input.extents.size(); ++d) dims.push_back(input_dim_name(static_cast<int>(d)));
  return dims;
}

std::vector<ComputeLocation> pack_locations(const Analysis& analysis, const Schedule& schedule,
                                            const std::string& input) {
  std::vector<ComputeLocation> options = {ComputeLocation{ComputeLocation::Kind::kRoot, "", 0, ""}};
  const AtHost at = input_at_host(analysis, schedule, input);
  if (at.func < 0) return options;
  const std::vector<ComputeLocation> loops = at_locations(analysis, schedule, at.func, at.stage, at.innermost);
  options.insert(options.end(), loops.begin(), loops.end());
  return options;
}

int input_dim_index(const InputAnalysis& input, const std::string& name) {
  for (int d = 0; d < static_cast<int>(input.extents.size()); ++d) {
    if (input_dim_name(d) == name) return d;
  }
  return -1;
}

int64_t pack_vector_width(const Analysis& analysis, const InputAnalysis& input, const std::string& storage0) {
  const int d = input_dim_index(input, storage0);
  if (d < 0) return 0;
  const int64_t lanes = analysis.target.vector_lanes * 4 / std::max(1, input.element_bytes);
  const int64_t width = std::min<int64_t>(lanes, input.extents[d]);
  return width >= 2 ? width : 0;
}

InputPack transposed_pack(const Analysis& analysis, const InputAnalysis& input, int dim) {
  InputPack pack;
  pack.input = input.name;
  pack.storage = input_dims(input);
  std::rotate(pack.storage.begin(), pack.storage.begin() + dim, pack.storage.begin() + dim + 1);
  pack.vector_width = pack_vector_width(analysis, input, pack.storage[0]);
  pack.parallel = true;
  return pack;
}

std::optional<InputPack> draw_pack(const Analysis& analysis, const Schedule& schedule, const InputAnalysis& input,
                                   Rng& rng) {
  if (input.extents.size() < 2) return std::nullopt;
  // One dimension moved innermost: an outer one is the transpose a reader walking it wants;
  // the contiguous one keeps the input's order, a copy worth making only per loop of the host
  // (a panel of a matmul's operand, contiguous where the input's rows are far apart).
  const int moved = static_cast<int>(rng.below(static_cast<int64_t>(input.extents.size())));
  InputPack pack = transposed_pack(analysis, input, moved);
  std::vector<ComputeLocation> locations = pack_locations(analysis, schedule, input.name);
  if (moved == 0) locations.erase(locations.begin());  // root comes first
  if (locations.empty()) return std::nullopt;
  pack.compute = rng.pick(locations);
  pack.parallel = pack.compute.kind == ComputeLocation::Kind::kRoot;
  return pack;
}

const InputPack* find_pack(const Schedule& schedule, const std::string& input) {
  for (const InputPack& p : schedule.packs) {
    if (p.input == input) return &p;
  }
  return nullptr;
}

}  // namespace ktune::scheduler
