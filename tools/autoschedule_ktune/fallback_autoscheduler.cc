#include "tools/autoschedule_ktune/fallback_autoscheduler.h"

#include <Halide.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <map>

#include "tools/autoschedule_ktune/plugin_config.h"

namespace ktune::autoschedule {
namespace {

// Where the Halide ktune was built against installs its autoscheduler plugins (from Halide's
// CMake package at build time; /usr/lib/x86_64-linux-gnu/halide14/ on Debian 12 x86-64).
constexpr const char* kHalidePluginDir = KTUNE_HALIDE_PLUGIN_DIR "/";

bool is_loaded(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

// Loads Halide's plugin for `autoscheduler` once, unless the Generator already did.
void ensure_loaded(const std::string& autoscheduler) {
  const std::string file = halide_plugin_library(autoscheduler);
  if (file.empty()) return;  // registered by a plugin the user loaded with -p
  const std::string installed = kHalidePluginDir + file;
  if (is_loaded(installed) || is_loaded(file)) return;
  // Elsewhere than Debian, the dynamic loader's search path may know the file.
  const std::string path = access(installed.c_str(), R_OK) == 0 ? installed : file;
  try {
    Halide::load_plugin(path);
  } catch (const Halide::Error& e) {
    throw Halide::CompileError("ktune: cannot load the fallback autoscheduler " + autoscheduler + " (" + path +
                               "): " + e.what());
  }
}

}  // namespace

std::string halide_plugin_library(const std::string& autoscheduler) {
  static const std::map<std::string, std::string> kShipped = {
      {"Adams2019", "libautoschedule_adams2019.so"},
      {"Mullapudi2016", "libautoschedule_mullapudi2016.so"},
      {"Li2018", "libautoschedule_li2018.so"}};
  const auto it = kShipped.find(autoscheduler);
  return it == kShipped.end() ? "" : it->second;
}

Halide::AutoSchedulerResults run_fallback(const std::string& autoscheduler, const Halide::Pipeline& pipeline,
                                          const Halide::Target& target, const Halide::MachineParams& params) {
  if (autoscheduler == kNoFallback) {
    throw Halide::CompileError(
        "ktune: no tuned schedule applies and KTUNE_FALLBACK_AUTOSCHEDULER=none forbids a fallback");
  }
  if (autoscheduler == kSchedulerName) {
    throw Halide::CompileError("ktune: KTUNE_FALLBACK_AUTOSCHEDULER cannot name ktune's own autoscheduler " +
                               std::string(kSchedulerName));
  }
  ensure_loaded(autoscheduler);
  Halide::Pipeline p = pipeline;
  Halide::AutoSchedulerResults results = p.auto_schedule(autoscheduler, target, params);
  if (results.scheduler_name.empty()) results.scheduler_name = autoscheduler;
  return results;
}

}  // namespace ktune::autoschedule
