// Function names of exported kernels: valid C identifiers, distinct, deterministic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "targets/c_identifier.h"

namespace ktune::targets {
namespace {

using ::testing::ElementsAre;

TEST(CIdentifier, SanitizesPunctuationAndLeadingDigits) {
  EXPECT_EQ(c_identifier("gemm-1024.v2", "ktune_"), "ktune_gemm_1024_v2");
  EXPECT_EQ(c_identifier("a  b--c", "ktune_"), "ktune_a_b_c");
  EXPECT_EQ(c_identifier("3x3conv", ""), "_3x3conv");
  EXPECT_EQ(c_identifier("", ""), "_");
  EXPECT_EQ(c_identifier("int", ""), "int_");
  EXPECT_EQ(c_identifier("caf\xc3\xa9", "k_"), "k_caf_");
  for (const std::string name : {"gemm-1024.v2", "a  b", "3x3", "", "int", "caf\xc3\xa9", "__"}) {
    EXPECT_TRUE(is_c_identifier(c_identifier(name, ""))) << name;
    EXPECT_TRUE(is_c_identifier(c_identifier(name, "ktune_"))) << name;
  }
}

TEST(CIdentifier, CollisionsGetNumberedSuffixesInOrder) {
  EXPECT_THAT(unique_c_identifiers({"gemm", "gemm", "a-b", "a.b", "gemm", "gemm_2"}, "k_"),
              ElementsAre("k_gemm", "k_gemm_2", "k_a_b", "k_a_b_2", "k_gemm_3", "k_gemm_2_2"));
  // The same input gives the same names.
  EXPECT_EQ(unique_c_identifiers({"a-b", "a.b", "a_b"}, ""), unique_c_identifiers({"a-b", "a.b", "a_b"}, ""));
}

TEST(CIdentifier, RecognizesIdentifiers) {
  EXPECT_TRUE(is_c_identifier("ktune_kernels"));
  EXPECT_TRUE(is_c_identifier("_x1"));
  EXPECT_FALSE(is_c_identifier("1x"));
  EXPECT_FALSE(is_c_identifier("bad-name"));
  EXPECT_FALSE(is_c_identifier(""));
  EXPECT_FALSE(is_c_identifier("struct"));
}

}  // namespace
}  // namespace ktune::targets
