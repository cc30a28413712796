// Runs the real `ktune` binary (or a program it wrote) in a child process and captures what
// it printed.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

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

// A path in the test's temporary directory that no other test process uses: ctest runs
// the tests of one file in parallel processes, so fixed names would race.
inline std::string scratch_path(const std::string& name) {
  return ::testing::TempDir() + "/ktune_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace ktune::testing
