#include "tools/autoschedule_ktune/plugin_config.h"

#include <cstdio>
#include <cstdlib>

#include "common/error.h"

namespace ktune::autoschedule {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

PluginConfig config_from_environment() {
  PluginConfig config;
  config.db = env("KTUNE_DB");
  config.device = env("KTUNE_DEVICE");
  if (const std::string f = env("KTUNE_FALLBACK_AUTOSCHEDULER"); !f.empty()) config.fallback = f;
  const std::string inputs = env("KTUNE_INPUTS");
  size_t pos = 0;
  while (pos < inputs.size()) {
    const size_t comma = inputs.find(',', pos);
    const std::string item = inputs.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      config.inputs_error = "KTUNE_INPUTS: expected name=value or name=LO:HI[,...], found \"" + item + "\"";
      break;
    }
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (value.find(':') == std::string::npos) {
      config.inputs[name] = value;
    } else {
      try {
        config.input_ranges[name] = subgraphs::parse_input_range("KTUNE_INPUTS", name, value, ':');
      } catch (const UserError& e) {
        config.inputs_error = e.what();
        break;
      }
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return config;
}

std::string tune_input_flags(const PluginConfig& config) {
  std::string flags;
  for (const auto& [name, value] : config.inputs) flags += " --input " + name + "=" + value;
  for (const auto& [name, range] : config.input_ranges) {
    char text[96];
    std::snprintf(text, sizeof(text), "%.9g,%.9g", range.lo, range.hi);
    flags += " --input-range " + name + "=" + text;
  }
  return flags;
}

}  // namespace ktune::autoschedule
