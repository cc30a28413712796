#include "tools/autoschedule_ktune/plugin_config.h"

#include <cstdlib>

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
  return config;
}

}  // namespace ktune::autoschedule
