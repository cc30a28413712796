// Stable, platform-independent hashing for identities that are stored on disk
// (workload keys, schedule hashes). Never use std::hash for these: it may change
// between standard library versions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ktune {

// 64-bit FNV-1a of the bytes of `text`.
uint64_t fnv1a64(std::string_view text, uint64_t seed = 0xcbf29ce484222325ULL);

// 128-bit identity of `text` as 32 lowercase hex digits (two independent FNV-1a lanes).
std::string stable_hash_hex(std::string_view text);

// Mixes two 64-bit values (splitmix64 finalizer); used to derive per-input seeds.
uint64_t mix64(uint64_t a, uint64_t b);

}  // namespace ktune
