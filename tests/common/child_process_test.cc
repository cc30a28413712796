#include "common/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
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

}  // namespace
}  // namespace ktune
