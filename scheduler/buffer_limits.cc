#include "scheduler/buffer_limits.h"

#include <algorithm>
#include <cstdio>

namespace ktune::scheduler {

double region_bytes(const FuncAnalysis& fa) {
  double bytes = fa.element_bytes;
  for (int64_t e : fa.extents) bytes *= static_cast<double>(std::max<int64_t>(1, e));
  return bytes;
}

std::optional<std::string> unallocatable(const FuncAnalysis& fa, const ComputeLocation& compute) {
  if (compute.kind == ComputeLocation::Kind::kInline || fa.is_output) return std::nullopt;
  for (size_t d = 0; d < fa.unbounded_dims.size() && d < fa.args.size(); ++d) {
    if (!fa.unbounded_dims[d]) continue;
    return "its region along " + fa.args[d] +
           " has no bound (an index that depends on data, clamped on one side at most), so it can only be inlined";
  }
  const double bytes = region_bytes(fa);
  if (compute.kind == ComputeLocation::Kind::kRoot && bytes > kMaxBufferBytes) {
    char text[160];
    std::snprintf(text, sizeof(text), "computed at root it needs a buffer of %.2f GB, above Halide's 2 GB limit",
                  bytes / 1e9);
    return std::string(text) + "; inline it or compute it at a loop of its consumer";
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
