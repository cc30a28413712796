// Tests cluster/dispatch.cc: how a round is dealt to the measuring ranks and when it is over.
#include "cluster/dispatch.h"

#include <gtest/gtest.h>

namespace ktune::cluster {
namespace {

TEST(Dispatch, DealsInTurnSoTheFirstItemsGoToEveryRank) {
  const Dispatch d(7, {1, 2, 3});
  EXPECT_EQ(d.items_of(1), (std::vector<int>{0, 3, 6}));
  EXPECT_EQ(d.items_of(2), (std::vector<int>{1, 4}));
  EXPECT_EQ(d.items_of(3), (std::vector<int>{2, 5}));
  EXPECT_TRUE(d.items_of(4).empty());
  EXPECT_EQ(d.outstanding(), 7);
  const Dispatch few(2, {1, 2, 3});
  EXPECT_EQ(few.busy_ranks(), (std::vector<int>{1, 2})) << "a rank without items gets no batch";
}

TEST(Dispatch, TheRoundEndsWhenEveryBusyRankHasFinished) {
  Dispatch d(4, {1, 2});
  EXPECT_TRUE(d.complete(1, 0));
  EXPECT_FALSE(d.complete(1, 0)) << "a repeated result is ignored";
  EXPECT_FALSE(d.complete(2, 0)) << "item 0 was not dealt to rank 2";
  EXPECT_FALSE(d.complete(5, 1)) << "a stray rank";
  EXPECT_TRUE(d.complete(2, 1));
  EXPECT_FALSE(d.done());
  EXPECT_EQ(d.finish(1), std::vector<int>{2}) << "rank 1 gave up item 2 (the budget ended)";
  EXPECT_FALSE(d.complete(1, 2)) << "nothing is accepted from a finished batch";
  EXPECT_FALSE(d.done());
  EXPECT_TRUE(d.complete(2, 3));
  EXPECT_TRUE(d.finish(2).empty());
  EXPECT_TRUE(d.done());
  EXPECT_EQ(d.outstanding(), 0);
}

TEST(Dispatch, NoRanksNoWork) {
  const Dispatch d(3, {});
  EXPECT_TRUE(d.done());
  EXPECT_TRUE(d.busy_ranks().empty());
}

}  // namespace
}  // namespace ktune::cluster
