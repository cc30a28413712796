#include "common/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "common/stop_request.h"

namespace ktune {
namespace {

TEST(MeasureChildProcessTest, ReturnsWhatTheChildWrote) {
  const ChildOutcome c = run_in_child([](int fd) { write_all(fd, "hello", 5); }, 10000);
  EXPECT_EQ(c.output, "hello");
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.signal, 0);
  EXPECT_FALSE(c.timed_out);
}

TEST(MeasureChildProcessTest, CarriesLargeOutputIntact) {
  std::string big(8 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7919 % 251);
  const ChildOutcome c = run_in_child([&](int fd) { write_all(fd, big.data(), big.size()); }, 30000);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_TRUE(c.output == big);
}

TEST(MeasureChildProcessTest, ReportsTheSignalThatKilledTheChild) {
  const ChildOutcome c = run_in_child([](int) { raise(SIGSEGV); }, 10000);
  EXPECT_EQ(c.signal, SIGSEGV);
  EXPECT_EQ(c.exit_code, -1);
  EXPECT_FALSE(c.timed_out);
}

TEST(MeasureChildProcessTest, ExceptionInTheChildIsAnExitCode) {
  const ChildOutcome c = run_in_child([](int) { throw std::runtime_error("no"); }, 10000);
  EXPECT_EQ(c.exit_code, kChildExceptionExit);
}

TEST(MeasureChildProcessTest, KillsAChildThatOverrunsItsDeadline) {
  const ChildOutcome c = run_in_child([](int) { sleep(30); }, 200);
  EXPECT_TRUE(c.timed_out);
  EXPECT_EQ(c.signal, SIGKILL);
  EXPECT_GE(c.wall_ms, 200);
  EXPECT_LT(c.wall_ms, 5000);
}

TEST(MeasureChildProcessTest, KillsAChildThatClosedItsPipeButHangs) {
  const ChildOutcome c = run_in_child(
      [](int fd) {
        write_all(fd, "x", 1);
        close(fd);
        sleep(30);
      },
      300);
  EXPECT_TRUE(c.timed_out);
  EXPECT_EQ(c.output, "x");
}

// True while process `pid` runs (a zombie nobody reaped yet has ended).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z" && state != "X";
}

TEST(MeasureChildProcessTest, AStopRequestKillsTheChildAtOnce) {
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request_stop();
  });
  const ChildOutcome c = run_in_child([](int) { sleep(30); }, 30000);
  stopper.join();
  clear_stop_requests();
  EXPECT_TRUE(c.stopped);
  EXPECT_FALSE(c.timed_out);
  EXPECT_EQ(c.signal, SIGKILL);
  EXPECT_LT(c.wall_ms, 2000);
  EXPECT_NE(describe_abnormal_end(c, "sleeping", 30000).find("was stopped"), std::string::npos);
}

TEST(MeasureChildProcessTest, NoChildStartsOnceAStopIsRequested) {
  request_stop();
  const ChildOutcome c = run_in_child([](int fd) { write_all(fd, "ran", 3); }, 30000);
  clear_stop_requests();
  EXPECT_TRUE(c.stopped);
  EXPECT_EQ(c.output, "");
  EXPECT_EQ(c.signal, 0);
}

// A child's own child (a grandchild) writes its pid to the test's pipe and sleeps; the
// child is killed at its deadline, and the grandchild must end with it, not run on alone.
TEST(MeasureChildProcessTest, NoChildOutlivesTheProcessThatForkedIt) {
  const ChildOutcome c = run_in_child(
      [](int fd) {
        run_in_child(
            [fd](int) {
              const std::string pid = std::to_string(getpid()) + "\n";
              write_all(fd, pid.data(), pid.size());
              sleep(30);
            },
            30000);
      },
      500);
  ASSERT_TRUE(c.timed_out);
  const pid_t grandchild = static_cast<pid_t>(std::stol(c.output));
  ASSERT_GT(grandchild, 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (running(grandchild) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(running(grandchild)) << "process " << grandchild << " outlived its parent";
}

}  // namespace
}  // namespace ktune
