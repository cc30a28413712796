#include "targets/device.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/hash.h"

namespace ktune::targets {
namespace {

// Bump when the fields hashed by device_key change: every stored key changes with it.
constexpr int kDeviceKeyVersion = 1;

// Short form of a JSON value for error messages.
std::string found(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

const nlohmann::json& require(const nlohmann::json& json, const std::string& where,
                              const char* field) {
  auto it = json.find(field);
  if (it == json.end()) {
    throw UserError(format_user_error(where, field, "missing; a device description needs it"));
  }
  return *it;
}

std::string read_string(const nlohmann::json& json, const std::string& where, const char* field) {
  const nlohmann::json& value = require(json, where, field);
  if (!value.is_string()) {
    throw UserError(format_user_error(where, field, "expected a string, found " + found(value)));
  }
  return value.get<std::string>();
}

int64_t read_int(const nlohmann::json& json, const std::string& where, const char* field,
                 int64_t min_value) {
  const nlohmann::json& value = require(json, where, field);
  if (!value.is_number_integer() || value.get<int64_t>() < min_value) {
    throw UserError(format_user_error(
        where, field,
        "expected an integer >= " + std::to_string(min_value) + ", found " + found(value)));
  }
  return value.get<int64_t>();
}

// Cache sizes are positive byte counts, or -1 for unknown.
int64_t read_cache_bytes(const nlohmann::json& json, const std::string& where, const char* field) {
  const int64_t bytes = read_int(json, where, field, -1);
  if (bytes == 0) {
    throw UserError(
        format_user_error(where, field, "expected a size in bytes > 0 or -1 (unknown), found 0"));
  }
  return bytes;
}

std::vector<std::string> read_string_list(const nlohmann::json& json, const std::string& where,
                                          const char* field) {
  const nlohmann::json& value = require(json, where, field);
  if (!value.is_array()) {
    throw UserError(
        format_user_error(where, field, "expected an array of strings, found " + found(value)));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw UserError(format_user_error(where, std::string(field) + "[" + std::to_string(i) + "]",
                                        "expected a string, found " + found(value[i])));
    }
    out.push_back(value[i].get<std::string>());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string read_halide_target(const nlohmann::json& json, const std::string& where) {
  std::string target = read_string(json, where, "halide_target");
  if (target.empty()) {
    throw UserError(format_user_error(where, "halide_target",
                                      "expected a Halide target string such as "
                                      "\"x86-64-linux-avx2-fma-sse41\", found \"\""));
  }
  return target;
}

nlohmann::json gpu_json(const GpuInfo& gpu) {
  return {
      {"name", gpu.name},
      {"compute_capability", gpu.compute_capability},
      {"sm_count", gpu.sm_count},
      {"max_threads_per_block", gpu.max_threads_per_block},
      {"shared_bytes_per_block", gpu.shared_bytes_per_block},
      {"shared_bytes_per_sm", gpu.shared_bytes_per_sm},
      {"registers_per_sm", gpu.registers_per_sm},
      {"l2_bytes", gpu.l2_bytes},
      {"memory_gbps", gpu.memory_gbps},
  };
}

GpuInfo read_gpu(const nlohmann::json& json, const std::string& where) {
  if (!json.is_object()) {
    throw UserError(
        format_user_error(where, "gpu", "expected a GPU description object, found " + found(json)));
  }
  // Field names in errors carry the "gpu." prefix so the user finds them.
  auto integer = [&](const char* field, int64_t min_value) {
    auto it = json.find(field);
    const std::string path = std::string("gpu.") + field;
    if (it == json.end()) {
      throw UserError(format_user_error(where, path, "missing; a GPU description needs it"));
    }
    if (!it->is_number_integer() || it->get<int64_t>() < min_value) {
      throw UserError(format_user_error(
          where, path,
          "expected an integer >= " + std::to_string(min_value) + ", found " + found(*it)));
    }
    return it->get<int64_t>();
  };
  GpuInfo gpu;
  auto name = json.find("name");
  if (name == json.end() || !name->is_string()) {
    throw UserError(format_user_error(where, "gpu.name", "expected the GPU's name as a string"));
  }
  gpu.name = name->get<std::string>();
  gpu.compute_capability = static_cast<int>(integer("compute_capability", 30));
  gpu.sm_count = static_cast<int>(integer("sm_count", 1));
  gpu.max_threads_per_block = static_cast<int>(integer("max_threads_per_block", 32));
  gpu.shared_bytes_per_block = integer("shared_bytes_per_block", 1);
  gpu.shared_bytes_per_sm = integer("shared_bytes_per_sm", 1);
  gpu.registers_per_sm = static_cast<int>(integer("registers_per_sm", 1));
  gpu.l2_bytes = integer("l2_bytes", 1);
  auto gbps = json.find("memory_gbps");
  if (gbps == json.end() || !gbps->is_number() || gbps->get<double>() <= 0) {
    throw UserError(format_user_error(where, "gpu.memory_gbps",
                                      "expected the DRAM bandwidth in GB/s, a number > 0"));
  }
  gpu.memory_gbps = gbps->get<double>();
  return gpu;
}

// The widest SIMD extension, as people name it; empty when none is known.
std::string vector_summary(const std::vector<std::string>& isa) {
  auto has = [&](const char* name) { return std::binary_search(isa.begin(), isa.end(), name); };
  if (has("avx512f")) return "AVX-512";
  if (has("avx2")) return "AVX2";
  if (has("avx")) return "AVX";
  if (has("sse4_2")) return "SSE4.2";
  if (has("sve2")) return "SVE2";
  if (has("sve")) return "SVE";
  if (has("asimd") || has("neon")) return "NEON";
  return "";
}

}  // namespace

bool operator==(const GpuInfo& a, const GpuInfo& b) {
  return a.name == b.name && a.compute_capability == b.compute_capability &&
         a.sm_count == b.sm_count && a.max_threads_per_block == b.max_threads_per_block &&
         a.shared_bytes_per_block == b.shared_bytes_per_block &&
         a.shared_bytes_per_sm == b.shared_bytes_per_sm &&
         a.registers_per_sm == b.registers_per_sm && a.l2_bytes == b.l2_bytes &&
         a.memory_gbps == b.memory_gbps;
}

bool operator==(const Device& a, const Device& b) {
  return a.kind == b.kind && a.gpu == b.gpu && a.vendor == b.vendor && a.cpu_model == b.cpu_model &&
         a.cores == b.cores && a.threads_per_core == b.threads_per_core &&
         a.isa_features == b.isa_features && a.l1d_bytes == b.l1d_bytes &&
         a.l2_bytes == b.l2_bytes && a.llc_bytes == b.llc_bytes &&
         a.halide_target == b.halide_target;
}

const char* to_string(DeviceKind kind) { return kind == DeviceKind::kCuda ? "cuda" : "cpu"; }

std::optional<DeviceKind> parse_device_kind(const std::string& name) {
  if (name == "cpu") return DeviceKind::kCpu;
  if (name == "cuda") return DeviceKind::kCuda;
  return std::nullopt;
}

std::string device_key_text(const Device& device) {
  // nlohmann::json objects keep their keys sorted, so dump() is canonical.
  if (device.is_gpu()) {
    nlohmann::json gpu = gpu_json(device.gpu);
    gpu["memory_gbps"] = static_cast<int64_t>(device.gpu.memory_gbps + 0.5);  // no float text
    return nlohmann::json{{"key_version", kDeviceKeyVersion},
                          {"kind", to_string(device.kind)},
                          {"halide_target", device.halide_target},
                          {"gpu", gpu}}
        .dump();
  }
  nlohmann::json canonical = {
      {"key_version", kDeviceKeyVersion},
      {"kind", to_string(device.kind)},
      {"halide_target", device.halide_target},
      {"cpu_model", device.cpu_model},
      {"cores", device.cores},
      {"threads_per_core", device.threads_per_core},
      {"l1d_bytes", device.l1d_bytes},
      {"l2_bytes", device.l2_bytes},
      {"llc_bytes", device.llc_bytes},
  };
  return canonical.dump();
}

std::string device_key(const Device& device) { return stable_hash_hex(device_key_text(device)); }

nlohmann::json to_json(const Device& device) {
  if (device.is_gpu()) {
    return {{"kind", to_string(device.kind)},
            {"halide_target", device.halide_target},
            {"gpu", gpu_json(device.gpu)}};
  }
  return {
      {"kind", to_string(device.kind)},
      {"vendor", device.vendor},
      {"cpu_model", device.cpu_model},
      {"cores", device.cores},
      {"threads_per_core", device.threads_per_core},
      {"isa_features", device.isa_features},
      {"l1d_bytes", device.l1d_bytes},
      {"l2_bytes", device.l2_bytes},
      {"llc_bytes", device.llc_bytes},
      {"halide_target", device.halide_target},
  };
}

Device device_from_json(const nlohmann::json& json, const std::string& where) {
  if (!json.is_object()) {
    throw UserError(
        format_user_error(where, "", "expected a device description object, found " + found(json)));
  }
  Device device;
  const std::string kind = read_string(json, where, "kind");
  const std::optional<DeviceKind> parsed = parse_device_kind(kind);
  if (!parsed) {
    throw UserError(format_user_error(where, "kind", "expected \"cpu\" or \"cuda\", found \"" + kind + "\""));
  }
  device.kind = *parsed;
  if (device.is_gpu()) {
    device.halide_target = read_halide_target(json, where);
    device.gpu = read_gpu(require(json, where, "gpu"), where);
    return device;
  }
  device.vendor = read_string(json, where, "vendor");
  device.cpu_model = read_string(json, where, "cpu_model");
  device.cores = static_cast<int>(read_int(json, where, "cores", 1));
  device.threads_per_core = static_cast<int>(read_int(json, where, "threads_per_core", 1));
  device.isa_features = read_string_list(json, where, "isa_features");
  device.l1d_bytes = read_cache_bytes(json, where, "l1d_bytes");
  device.l2_bytes = read_cache_bytes(json, where, "l2_bytes");
  device.llc_bytes = read_cache_bytes(json, where, "llc_bytes");
  device.halide_target = read_halide_target(json, where);
  return device;
}

std::string format_bytes(int64_t bytes) {
  if (bytes < 0) return "?";
  constexpr int64_t kKiB = 1024;
  constexpr int64_t kMiB = kKiB * 1024;
  constexpr int64_t kGiB = kMiB * 1024;
  if (bytes > 0 && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes > 0 && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes > 0 && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string short_name(const Device& device) {
  if (device.is_gpu()) {
    return (device.gpu.name.empty() ? "unknown GPU" : device.gpu.name) + " (sm_" +
           std::to_string(device.gpu.compute_capability) + ")";
  }
  std::string out = device.cpu_model.empty() ? "unknown CPU" : device.cpu_model;
  out += ", " + std::to_string(device.cores) + (device.cores == 1 ? " core" : " cores");
  const std::string simd = vector_summary(device.isa_features);
  if (!simd.empty()) out += ", " + simd;
  return out;
}

std::string describe(const Device& device) {
  if (device.is_gpu()) {
    const GpuInfo& gpu = device.gpu;
    std::string out = gpu.name.empty() ? "unknown GPU" : gpu.name;
    out += " (sm_" + std::to_string(gpu.compute_capability) + ")";
    out += ", " + std::to_string(gpu.sm_count) + " SMs";
    out += ", shared " + format_bytes(gpu.shared_bytes_per_block) + "/block " +
           format_bytes(gpu.shared_bytes_per_sm) + "/SM";
    out += ", L2 " + format_bytes(gpu.l2_bytes);
    out += ", " + std::to_string(static_cast<int64_t>(gpu.memory_gbps + 0.5)) + " GB/s";
    out += ", target " + device.halide_target;
    return out;
  }
  std::string out = device.cpu_model.empty() ? "unknown CPU" : device.cpu_model;
  out += ", " + std::to_string(device.cores) + (device.cores == 1 ? " core" : " cores");
  if (device.threads_per_core > 1) {
    out += " (" + std::to_string(device.threads_per_core) + " threads per core)";
  }
  const std::string simd = vector_summary(device.isa_features);
  if (!simd.empty()) out += ", " + simd;
  out += ", L1d " + format_bytes(device.l1d_bytes);
  out += ", L2 " + format_bytes(device.l2_bytes);
  out += ", LLC " + format_bytes(device.llc_bytes);
  out += ", target " + device.halide_target;
  return out;
}

}  // namespace ktune::targets
