#include "common/hash.h"

#include <cstdio>

namespace ktune {

uint64_t fnv1a64(std::string_view text, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string stable_hash_hex(std::string_view text) {
  // The second lane starts from a different offset basis so the two lanes are independent.
  const uint64_t a = fnv1a64(text);
  const uint64_t b = fnv1a64(text, 0x84222325cbf29ce4ULL ^ text.size());
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

uint64_t mix64(uint64_t a, uint64_t b) {
  uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace ktune
