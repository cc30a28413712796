#include "search/task_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace ktune::search {
namespace {

// Simulates `rounds` rounds where a task's best time falls by a fixed fraction per round.
std::vector<int> simulate(std::vector<double> weights, int rounds, TaskSchedulerParams params = {}) {
  std::vector<TaskProgress> tasks(weights.size());
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i].weight = weights[i];
  TaskScheduler scheduler(params);
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
  TaskProgress stuck{1.0, 5, {100, 100, 100, 100, 100}, {}};
  TaskProgress improving{1.0, 5, {100, 90, 80, 70, 60}, {}};
  TaskScheduler s;
  EXPECT_GT(s.expected_gain(improving), s.expected_gain(stuck));
  EXPECT_GT(s.expected_gain(stuck), 0) << "the optimistic term keeps every task alive";
  EXPECT_EQ(s.next({stuck, improving}), 1u);
}

// Simulates `rounds` rounds of tasks that start at `start_ns` and close a tenth of the gap to
// their roofline each round; returns the rounds each got.
std::vector<int> simulate_roofline(const std::vector<double>& start_ns, const std::vector<double>& roofline_ns,
                                   int rounds, TaskRule rule) {
  std::vector<TaskProgress> tasks(start_ns.size());
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i].roofline.compute_ns = roofline_ns[i];
  TaskSchedulerParams params;
  params.rule = rule;
  TaskScheduler scheduler(params);
  for (int r = 0; r < rounds; ++r) {
    const size_t t = scheduler.next(tasks);
    const double prev = tasks[t].best_ns.empty() ? start_ns[t] : tasks[t].best_ns.back();
    tasks[t].best_ns.push_back(prev - 0.1 * (prev - tasks[t].roofline.compute_ns));
    ++tasks[t].rounds;
  }
  std::vector<int> out;
  for (const TaskProgress& t : tasks) out.push_back(t.rounds);
  return out;
}

TEST(TaskScheduler, GapRuleFavoursTheSubgraphFurthestFromItsRoofline) {
  TaskProgress near{1.0, 4, {100, 100, 100, 100}, {95, 0}};  // at 95% of its roofline
  TaskProgress far{1.0, 4, {2, 2, 2, 2}, {1, 0}};            // 50%, and 50 times shorter
  TaskScheduler gap;
  EXPECT_GT(gap.expected_gain(far), gap.expected_gain(near));
  EXPECT_EQ(gap.next({near, far}), 1u);
  // The time rule would spend the round on the longer kernel.
  TaskSchedulerParams time_params;
  time_params.rule = TaskRule::kWeightedTime;
  EXPECT_EQ(TaskScheduler(time_params).next({near, far}), 0u);
}

TEST(TaskScheduler, RooflineGapIsClampedAndAGuessWhenUnknown) {
  TaskScheduler s;
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {200}, {0, 50}}), 0.75);
  const double unknown = TaskSchedulerParams{}.unknown_gap;
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {200}, {0, 0}}), unknown) << "roofline unknown";
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 0, {}, {0, 50}}), unknown) << "nothing measured yet";
  // Within a hair of the roofline: the smallest gap.
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {50.5}, {0, 50}}), TaskSchedulerParams{}.min_gap);
  // Measured faster than the roofline (the data stayed in cache): the smallest gap, so the
  // gap never grows as the best time falls past the roofline.
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {40}, {0, 50}}), TaskSchedulerParams{}.min_gap);
  double previous = 1;
  for (double best : {200.0, 100.0, 60.0, 55.0, 51.0, 50.0, 49.0, 40.0}) {
    const double gap = s.roofline_gap(TaskProgress{1.0, 1, {best}, {0, 50}});
    EXPECT_LE(gap, previous) << "best " << best;
    previous = gap;
  }
}

TEST(TaskScheduler, ASubgraphPastItsRooflineYieldsRoundsToOnesFarFromTheirs) {
  // Two subgraphs that beat their DRAM roofline (cache-resident) and one at 80% of its
  // compute roofline, none improving: the one with a real gap gets most rounds.
  std::vector<TaskProgress> tasks{{1.0, 0, {}, {0, 100}}, {1.0, 0, {}, {0, 100}}, {1.0, 0, {}, {100, 10}}};
  const std::vector<double> best{60, 70, 125};
  TaskScheduler s;
  for (int r = 0; r < 60; ++r) {
    const size_t t = s.next(tasks);
    tasks[t].best_ns.push_back(best[t]);
    ++tasks[t].rounds;
  }
  EXPECT_GT(tasks[2].rounds, tasks[0].rounds + tasks[1].rounds) << tasks[0].rounds << " " << tasks[1].rounds << " " << tasks[2].rounds;
  EXPECT_GE(tasks[0].rounds, 5) << "still above the minimum share";
}

TEST(TaskScheduler, PeakCorrectionIsTheFastestComputeBoundKernelsShareOfItsRoofline) {
  TaskScheduler s;
  // A matmul at 150% of its compute roofline, a conv at 120%, a cache-resident stencil at
  // 250% of its DRAM roofline, one not measured yet.
  const std::vector<TaskProgress> tasks{{1.0, 1, {100}, {150, 10}},
                                        {1.0, 1, {100}, {120, 30}},
                                        {1.0, 1, {40}, {5, 100}},
                                        {1.0, 0, {}, {900, 0}}};
  EXPECT_DOUBLE_EQ(s.peak_correction(tasks), 1.5) << "the memory-bound stencil does not count";
  EXPECT_DOUBLE_EQ(s.peak_correction({{1.0, 1, {100}, {80, 10}}}), 1.0) << "below its roofline: the peak stands";
  EXPECT_DOUBLE_EQ(s.peak_correction({{1.0, 1, {100}, {0, 0}}}), 1.0) << "no roofline known";
  EXPECT_DOUBLE_EQ(s.peak_correction({{1.0, 1, {1}, {1000, 0}}}), TaskSchedulerParams{}.max_peak_correction)
      << "a FLOP count far off the real one is capped";
}

TEST(TaskScheduler, CorrectedPeakScalesOnlyTheComputeLimit) {
  TaskScheduler s;
  // Compute-bound at 120 ns against a best of 200: with the peak 1.5 times higher, 80 ns.
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {200}, {120, 10}}, 1.5), 0.6);
  // Memory-bound: the bandwidth's 100 ns stays.
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {200}, {60, 100}}, 1.5), 0.5);
  // Compute-bound before the correction, memory-bound after it.
  EXPECT_DOUBLE_EQ(s.roofline_gap(TaskProgress{1.0, 1, {200}, {120, 100}}, 1.5), 0.5);
}

TEST(TaskScheduler, AnUnderMeasuredPeakStillSendsRoundsToTheComputeBoundKernelFarthestFromIt) {
  // The peak was measured at two thirds of the real one. The matmul reaches the real peak at
  // once (150% of the measured roofline); the conv stays at 75% of the real one (112%), the
  // batched matmul at 50% (75%); neither improves. Against the measured peak only the batched
  // matmul would show a gap, and a small one; corrected, it shows half its time and the conv a quarter.
  std::vector<TaskProgress> tasks{{1.0, 0, {}, {150, 10}}, {1.0, 0, {}, {150, 10}}, {1.0, 0, {}, {150, 10}}};
  const std::vector<double> best{100, 133.3, 200};
  TaskScheduler s;
  for (int r = 0; r < 90; ++r) {
    const size_t t = s.next(tasks);
    tasks[t].best_ns.push_back(best[t]);
    ++tasks[t].rounds;
  }
  EXPECT_NEAR(s.peak_correction(tasks), 1.5, 1e-12);
  EXPECT_GT(tasks[2].rounds, tasks[1].rounds) << tasks[0].rounds << " " << tasks[1].rounds << " " << tasks[2].rounds;
  EXPECT_GT(tasks[1].rounds, tasks[0].rounds) << tasks[0].rounds << " " << tasks[1].rounds << " " << tasks[2].rounds;
}

TEST(TaskScheduler, GapRuleSpendsOnKernelsByTheirGapNotTheirLength) {
  // A long kernel at 90% of its roofline and two short ones at 40%: under the gap rule the
  // short ones get most rounds; under the time rule the long one does.
  const std::vector<double> start{1e7, 1e5, 1e5}, roofline{0.9e7, 0.4e5, 0.4e5};
  const std::vector<int> gap = simulate_roofline(start, roofline, 90, TaskRule::kRooflineGap);
  const std::vector<int> time = simulate_roofline(start, roofline, 90, TaskRule::kWeightedTime);
  EXPECT_GT(gap[1] + gap[2], 2 * gap[0]) << gap[0] << " " << gap[1] << " " << gap[2];
  EXPECT_GT(time[0], time[1] + time[2]) << time[0] << " " << time[1] << " " << time[2];
}

TEST(TaskScheduler, GapRuleStillWeighsHowOftenASubgraphRuns) {
  TaskSchedulerParams params;
  params.rule = TaskRule::kRooflineGap;
  const std::vector<int> rounds = simulate({1.0, 8.0}, 60, params);
  EXPECT_GT(rounds[1], rounds[0]);
}

TEST(TaskScheduler, ParsesTheRuleName) {
  EXPECT_EQ(parse_task_rule("gap", "--task-rule"), TaskRule::kRooflineGap);
  EXPECT_EQ(parse_task_rule("time", "--task-rule"), TaskRule::kWeightedTime);
  try {
    parse_task_rule("fastest", "--task-rule");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--task-rule: expected gap or time, got 'fastest'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ktune::search
