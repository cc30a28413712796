#include "tools/autoschedule_ktune/generator_invocation.h"

#include <fstream>
#include <iterator>
#include <set>

namespace ktune::autoschedule {

GeneratorInvocation parse_generator_args(const std::vector<std::string>& args) {
  // Halide 14's generator flags that take a value (GenGen's usage text).
  static const std::set<std::string> kFlagsWithValue = {"-g", "-f", "-o", "-e", "-n", "-p", "-s", "-r", "-d", "-t", "-x"};
  static const std::set<std::string> kNotGeneratorParams = {"target", "auto_schedule", "machine_params"};
  GeneratorInvocation inv;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (kFlagsWithValue.count(a) && i + 1 < args.size()) {
      if (a == "-g") inv.generator = args[i + 1];
      ++i;
      continue;
    }
    const size_t eq = a.find('=');
    if (a.empty() || a[0] == '-' || eq == std::string::npos || eq == 0) continue;
    const std::string key = a.substr(0, eq);
    if (!kNotGeneratorParams.count(key)) inv.params[key] = a.substr(eq + 1);
  }
  return inv;
}

GeneratorInvocation this_generator_invocation() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\0', pos);
    args.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (!args.empty()) args.erase(args.begin());
  return parse_generator_args(args);
}

}  // namespace ktune::autoschedule
