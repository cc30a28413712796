#include "search/task_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ktune::search {
namespace {

// Simulates `rounds` rounds where a task's best time falls by a fixed fraction per round.
std::vector<int> simulate(std::vector<double> weights, int rounds) {
  std::vector<TaskProgress> tasks(weights.size());
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i].weight = weights[i];
  TaskScheduler scheduler;
  for (int r = 0; r < rounds; ++r) {
    const size_t t = scheduler.next(tasks);
    const double prev = tasks[t].best_ns.empty() ? 1e6 : tasks[t].best_ns.back();
    tasks[t].best_ns.push_back(prev * 0.9);
    ++tasks[t].rounds;
  }
  std::vector<int> out;
  for (const TaskProgress& t : tasks) out.push_back(t.rounds);
  return out;
}

TEST(TaskScheduler, WarmUpGivesEveryTaskARoundInOrder) {
  std::vector<TaskProgress> tasks(3);
  TaskScheduler s;
  EXPECT_EQ(s.next(tasks), 0u);
  tasks[0].rounds = 1;
  tasks[0].best_ns = {100};
  EXPECT_EQ(s.next(tasks), 1u);
}

TEST(TaskScheduler, HeavierWeightGetsMoreRounds) {
  const std::vector<int> rounds = simulate({1.0, 8.0}, 60);
  EXPECT_GT(rounds[1], rounds[0]);
  EXPECT_GT(rounds[1], 35);
}

TEST(TaskScheduler, NoTaskStarves) {
  const std::vector<int> rounds = simulate({1.0, 1000.0, 1.0}, 90);
  const double equal = 90.0 / 3;
  EXPECT_GE(rounds[0], static_cast<int>(0.25 * equal));
  EXPECT_GE(rounds[2], static_cast<int>(0.25 * equal));
}

TEST(TaskScheduler, RecentImprovementAttractsRounds) {
  TaskProgress stuck{1.0, 5, {100, 100, 100, 100, 100}};
  TaskProgress improving{1.0, 5, {100, 90, 80, 70, 60}};
  TaskScheduler s;
  EXPECT_GT(s.expected_gain(improving), s.expected_gain(stuck));
  EXPECT_GT(s.expected_gain(stuck), 0) << "the optimistic term keeps every task alive";
  EXPECT_EQ(s.next({stuck, improving}), 1u);
}

}  // namespace
}  // namespace ktune::search
