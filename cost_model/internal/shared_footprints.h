// SharedFootprints: footprints any extraction thread has computed, as plain data keyed by
// the full access-group key and the tile, so one thread's isl work serves the others (no
// isl object is shared). Insert-only and bounded; safe to use from many threads at once.
#pragma once

#include <tbb/concurrent_unordered_map.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "cost_model/internal/isl_util.h"

namespace ktune::cost_model::internal {

// What a tile touches of one buffer.
struct Footprint {
  int64_t elements = 0;  // distinct elements (exact for small tiles, else the box's)
  int64_t lines = 0;     // distinct 64-byte cache lines (from the bounding box)
  int64_t pages = 0;     // distinct 4 KiB pages (from the bounding box and the buffer's layout)
  Box box;               // bounding box in buffer coordinates; empty when isl failed
  bool from_isl = true;  // false when isl failed and the size is an estimate
};

// Hash of a key of integers (FNV-1a style mixing); not stable across versions.
struct KeyHash {
  size_t operator()(const std::vector<int64_t>& key) const;
};

class SharedFootprints {
 public:
  explicit SharedFootprints(size_t max_entries) : max_entries_(max_entries) {}
  // The footprint stored under `key`, or null.
  const Footprint* find(const std::vector<int64_t>& key) const;
  // Stores `fp` under `key` unless the map is full or has it already.
  void insert(const std::vector<int64_t>& key, const Footprint& fp);

 private:
  tbb::concurrent_unordered_map<std::vector<int64_t>, Footprint, KeyHash> map_;  // key -> footprint
  std::atomic<size_t> size_{0};  // entries inserted
  size_t max_entries_;           // no inserts beyond this
};

}  // namespace ktune::cost_model::internal
