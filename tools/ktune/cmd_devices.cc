// `ktune devices`: prints the devices ktune can tune for, each with its key and a one-line
// description (text) or its full description (json). Only the host so far.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
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
