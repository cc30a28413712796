// `ktune devices`: prints the devices ktune can tune for, each with its key and a one-line
// description (text) or its full description (json): this CPU, this machine's first CUDA GPU
// (or why there is none), and the known GPUs kernels can be built for elsewhere.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/device.h"
#include "targets/device_lookup.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct DevicesOptions {
  // "text": one line per device; "json": {"devices": [{"name", "key", "device"}]}.
  std::string format = "text";
};

int run_devices(const DevicesOptions& options) {
  nlohmann::json listed = nlohmann::json::array();
  std::string text;
  for (const std::string& name : targets::known_device_names()) {
    if (name == "cuda") {
      // Listed only when this machine has a GPU; otherwise say why not.
      const targets::CudaDetection detected = targets::detect_cuda_devices();
      if (detected.devices.empty()) {
        listed.push_back({{"name", name}, {"available", false}, {"problem", detected.problem}});
        text += name + "  (none on this machine: " + detected.problem + ")\n";
        continue;
      }
    }
    const targets::Device device = targets::device_by_name(name);
    const std::string key = targets::device_key(device);
    listed.push_back({{"name", name}, {"key", key}, {"device", targets::to_json(device)}});
    text += name + "  " + key + "  " + targets::describe(device) + "\n";
  }
  if (options.format == "json") {
    const std::string out = nlohmann::json{{"devices", listed}}.dump(2) + "\n";
    std::fputs(out.c_str(), stdout);
  } else {
    std::fputs(text.c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_devices(CLI::App& subcommand) {
  auto options = std::make_shared<DevicesOptions>();
  subcommand.add_option("--format", options->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [options] { return run_devices(*options); };
}

}  // namespace ktune::cli
