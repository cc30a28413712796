#include "tuning_db/internal/uuid.h"

#include <unistd.h>

#include <cstdio>
#include <random>

#include "tuning_db/internal/clock.h"

namespace ktune::tuning_db::internal {

std::string new_uuid() {
  // One generator per thread, reseeded in a forked child so parent and child never agree.
  thread_local pid_t seeded_for = 0;
  thread_local std::mt19937_64 rng;
  if (seeded_for != getpid()) {
    std::random_device device;
    std::seed_seq seed{device(),
                       device(),
                       device(),
                       device(),
                       static_cast<unsigned>(getpid()),
                       static_cast<unsigned>(now_unix_ms())};
    rng.seed(seed);
    seeded_for = getpid();
  }
  const uint64_t ms = static_cast<uint64_t>(now_unix_ms()) & 0xffffffffffffULL;
  const uint64_t r1 = rng();
  const uint64_t r2 = rng();
  const uint64_t hi = (ms << 16) | 0x7000 | (r1 & 0x0fff);                   // time, version 7
  const uint64_t lo = 0x8000000000000000ULL | (r2 & 0x3fffffffffffffffULL);  // variant 10
  char out[40];
  std::snprintf(out, sizeof(out), "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return out;
}

}  // namespace ktune::tuning_db::internal
