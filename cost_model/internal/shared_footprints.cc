#include "cost_model/internal/shared_footprints.h"

namespace ktune::cost_model::internal {

size_t KeyHash::operator()(const std::vector<int64_t>& key) const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int64_t v : key) {
    h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0x100000001b3ULL;
  }
  return static_cast<size_t>(h);
}

const Footprint* SharedFootprints::find(const std::vector<int64_t>& key) const {
  const auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

void SharedFootprints::insert(const std::vector<int64_t>& key, const Footprint& fp) {
  if (size_.load(std::memory_order_relaxed) >= max_entries_) return;
  if (map_.emplace(key, fp).second) size_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ktune::cost_model::internal
