#include "common/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/stop_request.h"

namespace ktune {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The longest the parent waits on its child's pipe before it looks for a stop request.
constexpr int kStopCheckMs = 50;

[[noreturn]] void child_main(pid_t parent, int fd, const std::function<void(int)>& body) {
  end_with_parent(parent);
  // A SIGTERM sent to the whole process group (timeout, Slurm) ends the child at once: the
  // parent's handler, which only asks for a stop, must not keep it running.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGTERM, SIGINT, SIGHUP}) ::signal(sig, SIG_DFL);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int code = 0;
  try {
    body(fd);
  } catch (...) {
    code = kChildExceptionExit;
  }
  close(fd);
  // _exit: LLVM's and the test framework's static destructors must not run in the child.
  _exit(code);
}

void record_status(int status, ChildOutcome& out) {
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    // The SIGTERM that asked the parent to stop may have been sent to the child too.
    out.stopped = stop_requested();
  } else if (WIFEXITED(status)) {
    out.exit_code = WEXITSTATUS(status);
  }
}

// Kills the child and waits until it is gone.
void kill_and_reap(pid_t pid, int& status) {
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

void end_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have ended between fork() and prctl(): then nobody would ever kill us.
  if (getppid() != parent) _exit(1);
}

std::string describe_abnormal_end(const ChildOutcome& child, const std::string& what, double timeout_ms) {
  if (!child.error.empty()) return child.error;
  if (child.stopped) return what + " was stopped (the run was asked to stop)";
  if (child.timed_out) return what + " did not finish within " + std::to_string(static_cast<int64_t>(timeout_ms / 1000)) + " s";
  if (child.signal) return what + " crashed the process (" + strsignal(child.signal) + ")";
  return "";
}

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

ChildOutcome run_in_child(const std::function<void(int fd)>& body, double timeout_ms) {
  ChildOutcome out;
  if (stop_requested()) {
    out.stopped = true;  // nothing new starts once the run is asked to stop
    return out;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe failed: ") + std::strerror(errno);
    return out;
  }
  std::fflush(nullptr);  // buffered output would otherwise be printed twice
  const Clock::time_point start = Clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    out.error = std::string("fork failed: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(parent, fds[1], body);
  }
  close(fds[1]);
  const Clock::time_point deadline = start + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double, std::milli>(timeout_ms));
  char buf[1 << 16];
  bool eof = false;
  while (!eof && !stop_requested()) {
    const double left_ms = ms_between(Clock::now(), deadline);
    if (left_ms <= 0) break;
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, std::min(kStopCheckMs, static_cast<int>(left_ms) + 1));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // loop re-checks the deadline
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      out.output.append(buf, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  // The child closed its pipe (or the deadline passed, or a stop was requested): reap it,
  // still within the deadline.
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      record_status(status, out);
      break;
    }
    if (r < 0 && errno != EINTR) break;
    if (stop_requested()) {
      kill_and_reap(pid, status);
      out.stopped = true;
      out.signal = SIGKILL;
      break;
    }
    if (Clock::now() >= deadline) {
      kill_and_reap(pid, status);
      out.timed_out = true;
      out.signal = SIGKILL;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  out.wall_ms = ms_between(start, Clock::now());
  return out;
}

}  // namespace ktune
