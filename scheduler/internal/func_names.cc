#include "scheduler/internal/func_names.h"

#include <map>

namespace ktune::scheduler {

std::vector<std::string> stable_func_names(const std::vector<Halide::Func>& funcs) {
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const Halide::Func& f : funcs) {
    std::string base = f.name().substr(0, f.name().find('$'));
    for (char& c : base) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    }
    const int n = ++seen[base];
    names.push_back(n == 1 ? base : base + "_" + std::to_string(n));
  }
  return names;
}

}  // namespace ktune::scheduler
