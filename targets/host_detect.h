// Detection of the machine ktune runs on: reads /proc/cpuinfo, the affinity mask and
// /sys/devices/system/cpu/cpu0/cache, with sysconf as the fallback. The parsers are pure
// functions of text so they can be tested on canned input from other machines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

// What /proc/cpuinfo says about the first processor listed.
struct CpuInfo {
  // "vendor_id" (x86) or "CPU implementer" (Arm); empty when absent.
  std::string vendor;
  // "model name", else "Model" or "Hardware" (some Arm kernels); empty when absent.
  std::string model_name;
  // "flags" (x86) or "Features" (Arm), in file order; empty when absent.
  std::vector<std::string> flags;
  // "siblings": logical CPUs per socket; -1 when absent.
  int siblings = -1;
  // "cpu cores": physical cores per socket; -1 when absent.
  int cpu_cores = -1;
  // "CPU part" (Arm): the core's part number, "0xd0b" for a Cortex-A76; empty elsewhere.
  std::string part;
};

// One cache of CPU 0, as listed under /sys/devices/system/cpu/cpu0/cache/index*/.
struct CacheLevel {
  // Cache level, 1 for L1.
  int level = 0;
  // "Data", "Instruction" or "Unified".
  std::string type;
  // Size of one instance in bytes.
  int64_t size_bytes = 0;
};

// Per-instance cache sizes in bytes; -1 where unknown.
struct CacheSizes {
  // L1 data (or unified) cache.
  int64_t l1d_bytes = -1;
  // L2 data or unified cache.
  int64_t l2_bytes = -1;
  // Highest-level data or unified cache at level 2 or above.
  int64_t llc_bytes = -1;
};

// Parses the text of /proc/cpuinfo; keys are taken from their first occurrence.
CpuInfo parse_cpuinfo(std::string_view text);

// Parses a cache size such as "48K", "2048K", "105M", "1 G", "1024 KB" or "512" (bytes).
// Returns nullopt for empty, malformed, zero or overflowing input.
std::optional<int64_t> parse_cache_size(std::string_view text);

// Counts the CPUs in a Linux CPU list such as "0-3,8,10-11" (6 here); nullopt when malformed.
std::optional<int> count_cpu_list(std::string_view text);

// Picks L1d, L2 and last-level sizes from CPU 0's cache list; instruction caches are
// ignored and the LLC is the highest level >= 2.
CacheSizes pick_cache_sizes(const std::vector<CacheLevel>& caches);

// Keeps the flags that matter to code generation (SSE/AVX/AMX/FMA/F16C/BMI, crypto,
// NEON/SVE, ...), sorted and unique; drops the rest ("hypervisor", "tsc", ...).
std::vector<std::string> isa_features_from_flags(const std::vector<std::string>& flags);

// `halide_target` without the x86 features the CPU's flags (from /proc/cpuinfo) do not
// have. avx512_sapphirerapids stays where the CPU has VNNI and AVX512-BF16 (Halide's own
// runtime check) even without AVX512-FP16, as on an AMD EPYC: ktune's compiles leave out
// the Sapphire Rapids instructions such a CPU lacks (cpu_codegen.h). Other architectures,
// and empty `flags`, leave it unchanged.
std::string supported_halide_target(const std::string& halide_target, const std::vector<std::string>& flags);

// Detects this machine. Never throws for missing /proc or /sys files: fields it cannot
// find are left at their "unknown" values. Not cached: every call reads the system again.
Device detect_host_device();

}  // namespace ktune::targets
