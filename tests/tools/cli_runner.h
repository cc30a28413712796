// Runs the real `ktune` binary in a child process and captures what it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ktune::testing {

struct CliResult {
  int exit_code = -1;  // the process exit code
  std::string out;     // stdout and stderr, interleaved
};

// `args` is appended to the ktune path as shell words.
inline CliResult run_ktune(const std::string& args) {
  CliResult r;
  const std::string cmd = std::string(KTUNE_EXE) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace ktune::testing
