// Running a function in a forked child with a deadline: the child writes its answer to a
// pipe and exits; the parent poll()s the pipe, SIGKILLs the child when the deadline
// passes or a stop is requested (common/stop_request.h), and reaps it. A child that
// crashes, hangs or exits early never harms the parent, and never outlives it.
// No Halide here: the callers decide what runs in the child (a forked child starts without
// the parent's thread pool, so the parent shuts Halide's pool down before each fork).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace ktune {

// How the child ended and what it wrote.
struct ChildOutcome {
  std::string output;      // every byte the child wrote to its pipe
  bool timed_out = false;  // the deadline passed and the parent killed it (SIGKILL)
  int signal = 0;          // signal that ended it (SIGKILL when timed_out); 0 if it exited
  int exit_code = -1;      // exit status when it exited normally; -1 otherwise
  bool stopped = false;    // a stop was requested while it ran: the parent killed it (SIGKILL), or
                          // the signal that asked for the stop ended it too; it said nothing
  double wall_ms = 0;      // from fork to reaping, in milliseconds
  std::string error;       // non-empty if fork or pipe failed (the child never ran)
};

// Exit code of a child whose body threw an exception.
inline constexpr int kChildExceptionExit = 3;

// Forks; the child ends with its parent (end_with_parent), resets crash and stop signals
// to their defaults, disables core dumps, runs `body(fd)` (fd is the write end of the
// pipe) and calls _exit(0), or _exit(kChildExceptionExit) if body throws. The parent gives
// it `timeout_ms`; once a stop is requested it kills the child, and starts none. Call only
// while no other thread of this process holds a Halide or LLVM lock (no compile running).
ChildOutcome run_in_child(const std::function<void(int fd)>& body, double timeout_ms);

// Called first in a forked child of process `parent`: the kernel kills the child (SIGKILL)
// when the thread that forked it ends, with its process or not, so that no child outlives
// the run that forked it; a child whose parent is already gone exits at once.
void end_with_parent(pid_t parent);

// How a child given `what` to do ("building generator blur") ended when it did not exit:
// "... did not finish within 60 s", "... crashed the process (Segmentation fault)", "... was
// stopped", or why it never ran. Empty when it exited (whatever its code).
std::string describe_abnormal_end(const ChildOutcome& child, const std::string& what, double timeout_ms);

// Writes all of `size` bytes, retrying partial writes and EINTR; false on any error.
bool write_all(int fd, const void* data, size_t size);

}  // namespace ktune
