#include "scheduler/gpu_mapping.h"

#include <set>

namespace ktune::scheduler {
namespace {

// Positions of `loops` (innermost first); they must be adjacent, innermost first.
bool adjacent(const LoopNest& nest, const std::vector<std::string>& loops, const char* what, int* first, int* last,
              std::string* error) {
  std::set<std::string> seen;
  for (size_t i = 0; i < loops.size(); ++i) {
    const int p = nest.position(loops[i]);
    if (p < 0) {
      *error = std::string(what) + " loop \"" + loops[i] + "\" does not exist";
      return false;
    }
    if (!seen.insert(loops[i]).second) {
      *error = std::string(what) + " loop \"" + loops[i] + "\" is listed twice";
      return false;
    }
    if (i == 0) *first = p;
    if (p != *first + static_cast<int>(i)) {
      *error = std::string(what) + " loops must be adjacent and listed innermost first (\"" + loops[i] + "\" is not)";
      return false;
    }
    *last = p;
  }
  return true;
}

}  // namespace

std::optional<GpuLevels> gpu_levels(const LoopNest& nest, const GpuMapping& gpu, std::string* error) {
  GpuLevels g;
  if (!adjacent(nest, gpu.threads, "thread", &g.innermost_thread, &g.outermost_thread, error)) return std::nullopt;
  if (!adjacent(nest, gpu.blocks, "block", &g.innermost_block, &g.outermost_block, error)) return std::nullopt;
  for (const std::string& t : gpu.threads) g.threads *= nest.find(t)->extent;
  return g;
}

}  // namespace ktune::scheduler
