#include "targets/cpu_codegen.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "targets/host_detect.h"

namespace ktune::targets {
namespace {

// LLVM 14's features of the Sapphire Rapids model that Halide 14 does not ask for by name
// (or asks for only for AMX tiles, which ktune never schedules), with the /proc/cpuinfo flag
// of each. The AVX-512 subsets Halide's own features stand for are not here: Halide's
// target already leaves out what the CPU lacks (supported_halide_target).
const std::vector<std::pair<std::string, std::string>>& sapphire_rapids_extras() {
  static const std::vector<std::pair<std::string, std::string>> kExtras = {
      {"amx-bf16", "amx_bf16"},           {"amx-int8", "amx_int8"},
      {"amx-tile", "amx_tile"},           {"avx512bitalg", "avx512_bitalg"},
      {"avx512fp16", "avx512_fp16"},      {"avx512vbmi2", "avx512_vbmi2"},
      {"avx512vp2intersect", "avx512_vp2intersect"},
      {"avx512vpopcntdq", "avx512_vpopcntdq"},
      {"avxvnni", "avx_vnni"},            {"gfni", "gfni"},
      {"vaes", "vaes"},                   {"vpclmulqdq", "vpclmulqdq"},
  };
  return kExtras;
}

bool has_flag(const std::vector<std::string>& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

bool target_has(const std::string& halide_target, const std::string& feature) {
  return ("-" + halide_target + "-").find("-" + feature + "-") != std::string::npos;
}

}  // namespace

const std::vector<std::string>& host_cpu_flags() {
  static const std::vector<std::string> flags = [] {
    std::ifstream in("/proc/cpuinfo");
    std::ostringstream text;
    if (in) text << in.rdbuf();
    return parse_cpuinfo(text.str()).flags;
  }();
  return flags;
}

std::vector<std::string> llvm_features_cpu_lacks(const std::string& mcpu, const std::vector<std::string>& cpu_flags) {
  std::vector<std::string> lacking;
  if (mcpu != "sapphirerapids" || cpu_flags.empty()) return lacking;
  for (const auto& [feature, flag] : sapphire_rapids_extras()) {
    if (!has_flag(cpu_flags, flag)) lacking.push_back(feature);
  }
  return lacking;
}

std::string llvm_cpu_model(const std::string& mcpu, const std::vector<std::string>& cpu_flags) {
  if (mcpu != "sapphirerapids" || cpu_flags.empty() || has_flag(cpu_flags, "avx512_fp16")) return mcpu;
  return "cannonlake";
}

std::string without_llvm_features(std::string mattrs, const std::vector<std::string>& features) {
  for (const std::string& feature : features) mattrs += (mattrs.empty() ? "-" : ",-") + feature;
  return mattrs;
}

bool env_flag_set(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

bool converts_f16_with_f16c(const std::string& halide_target) {
  if (env_flag_set("KTUNE_F16_IN_SOFTWARE")) return false;
  if (halide_target.rfind("x86-64-", 0) != 0 || !target_has(halide_target, "avx512")) return false;
  for (const char* offload : {"cuda", "opencl", "metal", "d3d12compute", "openglcompute", "hvx", "hvx_128", "vulkan"}) {
    if (target_has(halide_target, offload)) return false;
  }
  return true;
}

std::vector<LowPrecisionIsa> low_precision_isa(const Device& device) {
  if (device.is_gpu() || device.halide_target.rfind("x86-", 0) != 0) return {};
  const auto has = [&](const char* flag) { return has_flag(device.isa_features, flag); };
  const bool spr = target_has(device.halide_target, "avx512_sapphirerapids");
  std::vector<LowPrecisionIsa> out;
  out.push_back({"VNNI", has("avx512_vnni"), spr && has("avx512_vnni"),
                 spr ? "vpdpbusd, vpdpwssd (avx512_sapphirerapids)" : "needs avx512_vnni and avx512_bf16"});
  out.push_back({"AVX512-BF16", has("avx512_bf16"), spr && has("avx512_bf16"),
                 spr ? "vdpbf16ps, vcvtne2ps2bf16 (avx512_sapphirerapids)" : "needs avx512_vnni and avx512_bf16"});
  const bool f16c = has("f16c") && converts_f16_with_f16c(device.halide_target);
  out.push_back({"F16C", has("f16c"), f16c,
                 f16c ? "vcvtph2ps, vcvtps2ph (ktune's f16 conversion)" : "Halide 14 converts f16 with vector integer code"});
  out.push_back({"AVX512-FP16", has("avx512_fp16"), false, "Halide 14 has no feature for it; left out"});
  out.push_back({"AMX", has("amx_tile"), false, "ktune schedules no AMX tiles; left out"});
  return out;
}

}  // namespace ktune::targets
