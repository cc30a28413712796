// Runs the real `ktune` binary (or a program it wrote) in a child process and captures what
// it printed.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace ktune::testing {

struct CliResult {
  int exit_code = -1;  // the process exit code; -1 when it did not exit normally
  std::string out;     // what the command line printed on stdout
};

// Runs `command` with the shell; stderr goes where the test's goes unless the command
// redirects it.
inline CliResult run_command(const std::string& command) {
  CliResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `args` is appended to the ktune path as shell words; `out` holds stdout and stderr,
// interleaved.
inline CliResult run_ktune(const std::string& args) {
  return run_command(std::string(KTUNE_EXE) + " " + args + " 2>&1");
}

// Starts ktune with `args` in the background, in a process group of its own (every process
// it forks stays in it, so a test can see that none is left), its output going to `out_path`.
inline pid_t start_ktune(const std::vector<std::string>& args, const std::string& out_path) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    FILE* out = std::freopen(out_path.c_str(), "w", stdout);
    (void)out;
    dup2(fileno(stdout), STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KTUNE_EXE));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(KTUNE_EXE, argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that no fork of it can come before its group exists
  return pid;
}

// The prefix of this process's scratch paths in the test's temporary directory.
inline std::string scratch_prefix() { return "ktune_" + std::to_string(::getpid()) + "_"; }

// Removes, when the test process exits, every file in the temporary directory that starts
// with its scratch prefix: the scratch paths and what was written beside them (a
// database's -wal and -shm files, logs, pages), so that test runs do not pile files up.
// Forked children leave with _exit, and only the process that made it removes anything.
class ScratchFiles {
 public:
  static void keep_tidy() { static ScratchFiles files; }
  ~ScratchFiles() {
    if (::getpid() != owner_) return;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(::testing::TempDir(), ignored)) {
      if (entry.path().filename().string().rfind(scratch_prefix(), 0) == 0) std::filesystem::remove_all(entry.path(), ignored);
    }
  }

 private:
  ScratchFiles() : owner_(::getpid()) {}
  pid_t owner_;
};

// A path in the test's temporary directory that no other test process uses (ctest runs
// the tests of one file in parallel processes, so fixed names would race), removed with
// everything that starts with it when the process exits.
inline std::string scratch_path(const std::string& name) {
  ScratchFiles::keep_tidy();
  return ::testing::TempDir() + "/" + scratch_prefix() + name;
}

}  // namespace ktune::testing
