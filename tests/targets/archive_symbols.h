// Counts the definitions of a symbol in a static library with `nm --defined-only`, for the
// tests that check an exported archive holds each function and exactly one Halide runtime
// (runtime symbols are weak, so a second copy would link silently).
#pragma once

#include <array>
#include <cstdio>
#include <sstream>
#include <string>

namespace ktune::testing {

// Definitions (strong or weak) of `symbol` across the archive's members; -1 when nm fails.
inline int defined_symbol_count(const std::string& archive, const std::string& symbol) {
  FILE* pipe = popen(("nm --defined-only " + archive + " 2>/dev/null").c_str(), "r");
  if (!pipe) return -1;
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  if (pclose(pipe) != 0) return -1;
  int count = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string address, kind, name;
    if (words >> address >> kind >> name && name == symbol) ++count;
  }
  return count;
}

}  // namespace ktune::testing
