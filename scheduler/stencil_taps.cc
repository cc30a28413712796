#include "scheduler/stencil_taps.h"

#include <algorithm>

#include "scheduler/isl_context.h"

namespace ktune::scheduler {

std::optional<std::vector<bool>> tapped_dims(const StageAnalysis& reader, const std::string& producer) {
  thread_local IslContext isl(200000);
  isl.reset_operations();
  std::vector<isl::map> reads;
  try {
    for (const ProducerUse& use : reader.uses) {
      if (use.name != producer) continue;
      if (!use.affine || use.access.empty()) return std::nullopt;
      reads.emplace_back(isl.ctx(), use.access);
    }
    if (reads.empty()) return std::vector<bool>{};
    std::vector<bool> tapped(reads.front().range_tuple_dim(), false);
    for (size_t k = 1; k < reads.size(); ++k) {
      const isl::set offsets = reads.front().reverse().apply_range(reads[k]).deltas();
      for (size_t d = 0; d < tapped.size(); ++d) {
        const int i = static_cast<int>(d);
        tapped[d] = tapped[d] || !offsets.dim_max_val(i).is_zero() || !offsets.dim_min_val(i).is_zero();
      }
    }
    if (isl.quota_exceeded()) return std::nullopt;
    return tapped;
  } catch (const isl::exception&) {
    return std::nullopt;
  }
}

bool taps_across(const FuncAnalysis& pass, const StageAnalysis& reader) {
  const std::optional<std::vector<bool>> across = tapped_dims(reader, pass.name);
  if (!across || std::find(across->begin(), across->end(), true) == across->end()) return false;
  bool taps = false;
  for (const ProducerUse& use : pass.stages[0].uses) {
    const std::optional<std::vector<bool>> along = tapped_dims(pass.stages[0], use.name);
    if (!along || along->size() != across->size()) return false;
    for (size_t d = 0; d < along->size(); ++d) {
      if ((*along)[d] && (*across)[d]) return false;
      taps |= (*along)[d];
    }
  }
  return taps;
}

}  // namespace ktune::scheduler
