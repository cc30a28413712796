// A small deterministic random generator (splitmix64) whose draws are identical on every
// platform and standard library, so a seed always reproduces the same schedules.
#pragma once

#include <cstdint>
#include <vector>

#include "common/check.h"

namespace ktune::scheduler {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n >= 1.
  int64_t below(int64_t n) {
    KTUNE_CHECK(n >= 1) << "below(" << n << ")";
    return static_cast<int64_t>(next() % static_cast<uint64_t>(n));
  }
  // True with probability p.
  bool chance(double p) { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    KTUNE_CHECK(!items.empty()) << "pick from an empty list";
    return items[static_cast<size_t>(below(static_cast<int64_t>(items.size())))];
  }

 private:
  uint64_t state_;
};

}  // namespace ktune::scheduler
