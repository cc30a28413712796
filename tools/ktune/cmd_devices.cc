// `ktune devices`: prints the devices ktune can tune for, each with its key and a one-line
// description (text) or its full description (json): this CPU (with which low-precision
// instructions it has and which ktune's code uses), this machine's first CUDA GPU (or why
// there is none), and the known devices kernels can be built for elsewhere.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "targets/cpu_codegen.h"
#include "targets/cuda_devices.h"
#include "targets/device.h"
#include "targets/device_lookup.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

// "VNNI yes, used (vpdpbusd ...); ...; AMX no": one entry per instruction family.
std::string describe_low_precision(const std::vector<targets::LowPrecisionIsa>& families) {
  std::string out;
  for (const targets::LowPrecisionIsa& isa : families) {
    out += (out.empty() ? "" : "; ") + isa.name + (isa.cpu_has ? " yes" : " no");
    if (isa.cpu_has) out += (isa.used ? ", used (" : ", not used (") + isa.note + ")";
  }
  return out;
}

nlohmann::json low_precision_json(const std::vector<targets::LowPrecisionIsa>& families) {
  nlohmann::json out = nlohmann::json::array();
  for (const targets::LowPrecisionIsa& isa : families) {
    out.push_back({{"name", isa.name}, {"cpu", isa.cpu_has}, {"used", isa.used}, {"note", isa.note}});
  }
  return out;
}

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
    if (name != "host") continue;
    // Only this CPU: what the code compiled here may use is known for it alone.
    const std::vector<targets::LowPrecisionIsa> families = targets::low_precision_isa(device);
    if (families.empty()) continue;
    listed.back()["low_precision"] = low_precision_json(families);
    text += "      low precision: " + describe_low_precision(families) + "\n";
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
