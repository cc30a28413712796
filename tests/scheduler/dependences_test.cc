// isl dependence analysis on hand-built cases.
#include "scheduler/dependences.h"

#include <gtest/gtest.h>

namespace ktune::scheduler {
namespace {

TEST(Dependences, ReductionLoopCarriesAndPureLoopDoesNot) {
  IslContext isl;
  // sum(i) += A(i, k): S[i, k] writes F[i] and reads F[i].
  const LoopDependences d = loop_dependences(isl, "{ S[i, k] : 0 <= i < 8 and 0 <= k < 16 }", "{ S[i, k] -> F[i] }",
                                             "{ S[i, k] -> F[i] }", 2);
  ASSERT_EQ(d.status, "ok");
  EXPECT_FALSE(d.carries[0]) << "i is parallel";
  EXPECT_TRUE(d.carries[1]) << "k carries the accumulation";
}

TEST(Dependences, PureMapCarriesNothing) {
  IslContext isl;
  const LoopDependences d = loop_dependences(isl, "{ S[y, x] : 0 <= y < 4 and 0 <= x < 4 }", "{ S[y, x] -> F[x, y] }", "", 2);
  EXPECT_FALSE(d.carries[0]);
  EXPECT_FALSE(d.carries[1]);
}

TEST(Dependences, ScanAlongAPureLoopCarries) {
  IslContext isl;
  // f(x) = f(x - 1) + ...: a prefix sum over x.
  const LoopDependences d = loop_dependences(isl, "{ S[x] : 1 <= x < 16 }", "{ S[x] -> F[x] }", "{ S[x] -> F[x - 1] }", 1);
  EXPECT_TRUE(d.carries[0]);
}

TEST(Dependences, MatmulUpdateCarriesOnlyK) {
  IslContext isl;
  const LoopDependences d = loop_dependences(isl, "{ S[y, x, k] : 0 <= y < 5 and 0 <= x < 7 and 0 <= k < 3 }",
                                             "{ S[y, x, k] -> F[x, y] }", "{ S[y, x, k] -> F[x, y] }", 3);
  EXPECT_FALSE(d.carries[0]);
  EXPECT_FALSE(d.carries[1]);
  EXPECT_TRUE(d.carries[2]);
}

TEST(Dependences, AScatterAlongOneDimensionLeavesTheOthersParallel) {
  IslContext isl;
  // histogram(x, y, data(...)) += ...: the bin is data-dependent (any element along it), the
  // pixel block (x, y) is exact, so only the window loop r carries.
  const char* access = "{ S[y, x, r] -> F[x, y, o] }";
  const LoopDependences d =
      loop_dependences(isl, "{ S[y, x, r] : 0 <= y < 4 and 0 <= x < 4 and 0 <= r < 9 }", access, access, 3);
  ASSERT_EQ(d.status, "ok");
  EXPECT_FALSE(d.carries[0]) << "y";
  EXPECT_FALSE(d.carries[1]) << "x";
  EXPECT_TRUE(d.carries[2]) << "r";
}

TEST(Dependences, AGatherAlongOneDimensionLeavesTheOthersParallel) {
  IslContext isl;
  // f(x, r.x, c, r.y) = max(f(x, r.x, c, r.y - 1), f(x, r.x + shift(r.y), c, r.y - 1)): the
  // shifted read reaches any row of the previous level; c and x stay exact.
  const LoopDependences d = loop_dependences(
      isl, "{ S[c, x, t, s] : 0 <= c < 3 and 0 <= x < 8 and 1 <= t < 4 and 0 <= s < 16 }",
      "{ S[c, x, t, s] -> F[x, s, c, t] }", "{ S[c, x, t, s] -> F[x, s, c, t - 1]; S[c, x, t, s] -> F[x, o, c, t - 1] }", 4);
  ASSERT_EQ(d.status, "ok");
  EXPECT_FALSE(d.carries[0]) << "c";
  EXPECT_FALSE(d.carries[1]) << "x";
  EXPECT_TRUE(d.carries[2]) << "t";
  EXPECT_TRUE(d.carries[3]) << "s: a row of one level is read at other rows of the next (any distance counts)";
}

TEST(Dependences, AnOverApproximatedWriteDoesNotHideAnEarlierOne) {
  IslContext isl;
  // Each j writes some element of row i (data-dependent), then reads element (i, 0): any earlier
  // j of the same i may have written it, so j carries; different rows never meet.
  const LoopDependences d = loop_dependences(isl, "{ S[i, j] : 0 <= i < 4 and 0 <= j < 8 }", "{ S[i, j] -> F[i, o] }",
                                             "{ S[i, j] -> F[i, 0] }", 2);
  ASSERT_EQ(d.status, "ok");
  EXPECT_FALSE(d.carries[0]);
  EXPECT_TRUE(d.carries[1]);
}

TEST(Dependences, QuotaOrBadInputBecomesAConservativeStatus) {
  IslContext isl;
  const LoopDependences d = loop_dependences(isl, "{ S[i : nonsense", "{ S[i] -> F[i] }", "", 1);
  EXPECT_NE(d.status, "ok");
  EXPECT_TRUE(d.carries[0]);
  IslContext tiny(1);  // one operation: every computation runs out of quota
  const LoopDependences q = loop_dependences(tiny, "{ S[i, k] : 0 <= i < 8 and 0 <= k < 16 }", "{ S[i, k] -> F[i] }",
                                             "{ S[i, k] -> F[i] }", 2);
  EXPECT_NE(q.status, "ok");
  EXPECT_TRUE(q.carries[0]);
  EXPECT_TRUE(q.carries[1]);
}

}  // namespace
}  // namespace ktune::scheduler
