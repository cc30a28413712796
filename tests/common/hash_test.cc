#include "common/hash.h"

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(Fnv1a64, MatchesPublishedTestVectors) {
  // Reference values of the FNV-1a 64-bit hash (offset basis and "a").
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(StableHashHex, IsPinnedAndSensitiveToEveryByte) {
  const std::string h = stable_hash_hex("matmul(f32[4,4], f32[4,4])");
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h, stable_hash_hex("matmul(f32[4,4], f32[4,4])"));
  EXPECT_NE(h, stable_hash_hex("matmul(f32[4,4], f32[4,5])"));
  EXPECT_NE(stable_hash_hex("ab"), stable_hash_hex("ba"));
}

TEST(Mix64, DependsOnBothArguments) {
  EXPECT_NE(mix64(1, 2), mix64(2, 1));
  EXPECT_NE(mix64(7, 0), mix64(7, 1));
  EXPECT_EQ(mix64(7, 1), mix64(7, 1));
}

}  // namespace
}  // namespace ktune
