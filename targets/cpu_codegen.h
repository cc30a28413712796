// Code for the instructions this CPU has, and none it lacks. Halide 14 names VNNI and
// AVX512-BF16 with one target feature, avx512_sapphirerapids, and compiles it for LLVM's
// Sapphire Rapids CPU model, which also implies AVX512-FP16 and AMX; a CPU with VNNI and
// BF16 but without those (AMD Zen 4/5, Intel Cooper Lake) then dies with SIGILL on code
// that touches 16-bit values. ktune keeps the feature where the CPU has VNNI and BF16, so
// that Halide's dot-product patterns fire (vpdpbusd, vdpbf16ps), and has LLVM leave out
// what /proc/cpuinfo does not report: every LLVM compile in a ktune process (JIT and AOT)
// takes its CPU model and features from Halide's get_target_options, which ktune's
// executables replace with one that takes the Cannon Lake model instead and appends
// "-feature" for each feature the CPU lacks (llvm_target_options.cc). KTUNE_CODEGEN_ALL_FEATURES=1 turns that off (Halide's own choice),
// which is how the tests show that a kernel using a missing instruction is a crash.
#pragma once

#include <string>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

// This CPU's flags as /proc/cpuinfo lists them (empty where it cannot be read), read once
// per process: every compile and the host's target ask for them.
const std::vector<std::string>& host_cpu_flags();

// LLVM features that the CPU model `mcpu` implies, Halide never asks for by name, and a
// CPU with `cpu_flags` (/proc/cpuinfo names) lacks, sorted; e.g. {"amx-bf16", "amx-int8",
// "amx-tile", "avx512fp16"} for "sapphirerapids" on an AMD EPYC. Empty for other models.
std::vector<std::string> llvm_features_cpu_lacks(const std::string& mcpu, const std::vector<std::string>& cpu_flags);

// The LLVM CPU model to compile with instead of `mcpu`: "cannonlake" (what Halide picks for
// AVX-512 without avx512_sapphirerapids) for "sapphirerapids" on a CPU without
// AVX512-FP16, so that code without dot products is the code it was before, instruction
// for instruction; `mcpu` otherwise.
// VNNI and BF16 stay on through Halide's explicit feature list.
std::string llvm_cpu_model(const std::string& mcpu, const std::vector<std::string>& cpu_flags);

// `mattrs` (LLVM's comma-separated feature list) with "-feature" appended for each of
// `features`.
std::string without_llvm_features(std::string mattrs, const std::vector<std::string>& features);

// True when this process's Halide compiles go through ktune's get_target_options (its
// executables and tests; not a Generator that loads ktune's plugin) and
// KTUNE_CODEGEN_ALL_FEATURES is not set.
bool codegen_follows_cpu();

// True when f16 <-> f32 conversions in code for `halide_target` use F16C's vcvtph2ps and
// vcvtps2ph (f16c_conversions.cc): an x86-64 target with AVX-512 (every such CPU has
// F16C; LLVM 14 offers the conversion as an intrinsic only in its 512-bit form) that
// offloads nothing to a GPU or DSP, unless KTUNE_F16_IN_SOFTWARE=1 asks for Halide's own
// conversion (vector integer code). Vectors of 4 lanes or more only.
bool converts_f16_with_f16c(const std::string& halide_target);

// True when environment variable `name` is set to something other than "" or "0": how
// KTUNE_CODEGEN_ALL_FEATURES and KTUNE_F16_IN_SOFTWARE are read.
bool env_flag_set(const char* name);

// One low-precision instruction family: whether the CPU has it and whether ktune's code
// for `device` uses it, with a few words on why not.
struct LowPrecisionIsa {
  std::string name;  // "VNNI", "AVX512-BF16", "F16C", "AVX512-FP16", "AMX"
  bool cpu_has = false;
  bool used = false;
  std::string note;  // e.g. "vpdpbusd (avx512_sapphirerapids)", "Halide 14 has no feature for it"
};

// VNNI, AVX512-BF16, F16C, AVX512-FP16 and AMX on an x86 CPU device; empty for others.
std::vector<LowPrecisionIsa> low_precision_isa(const Device& device);

}  // namespace ktune::targets
