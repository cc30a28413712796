#include "targets/known_devices.h"

#include "targets/cuda_devices.h"

namespace ktune::targets {
namespace {

// Host part of the Halide target of a GPU on another machine: x86-64 Linux with AVX2,
// which every current GPU server has. The host code only launches kernels.
constexpr const char* kRemoteHostTarget = "x86-64-linux-avx-avx2-f16c-fma-sse41";

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;

// A CUDA card from its data sheet: SMs, shared memory per SM, L2 and peak DRAM bandwidth.
Device cuda_card(const char* name, int capability, int sms, int64_t shared_per_sm, int64_t l2, double gbps) {
  Device d;
  d.kind = DeviceKind::kCuda;
  d.gpu.name = name;
  d.gpu.compute_capability = capability;
  d.gpu.sm_count = sms;
  d.gpu.max_threads_per_block = 1024;
  d.gpu.shared_bytes_per_block = 48 * kKiB;
  d.gpu.shared_bytes_per_sm = shared_per_sm;
  d.gpu.registers_per_sm = 65536;
  d.gpu.l2_bytes = l2;
  d.gpu.memory_gbps = gbps;
  d.halide_target = cuda_halide_target(capability, kRemoteHostTarget);
  return d;
}

// The Halide target of the Arm cores below: AArch64 Linux with the dot-product (sdot/udot)
// and half-precision arithmetic extensions every one of them has. Neoverse V1's SVE is left
// out: Halide 14's SVE code generation needs a fixed vector length and is not complete.
constexpr const char* kArmV82Target = "arm-64-linux-arm_dot_prod-arm_fp16";

// The /proc/cpuinfo "Features" of an ARMv8.2-A core with dot product and FP16.
const std::vector<std::string> kArmV82Features = {"aes", "asimd", "asimddp", "asimdhp", "asimdrdm", "dotprod",
                                                  "fphp", "pmull", "sha2"};

// An Arm CPU from its technical reference manual and a typical system: cores, L1d and L2
// per core, and the shared last-level cache.
Device arm_cpu(const char* model, int cores, int64_t l1d, int64_t l2, int64_t llc) {
  Device d;
  d.kind = DeviceKind::kCpu;
  d.vendor = "0x41";
  d.cpu_model = model;
  d.cores = cores;
  d.threads_per_core = 1;
  d.isa_features = kArmV82Features;
  d.l1d_bytes = l1d;
  d.l2_bytes = l2;
  d.llc_bytes = llc;
  d.halide_target = kArmV82Target;
  return d;
}

}  // namespace

const std::vector<KnownDevice>& known_devices() {
  static const std::vector<KnownDevice> table = {
      {"a100", cuda_card("NVIDIA A100-SXM4-80GB", 80, 108, 164 * kKiB, 40 * kMiB, 2039)},
      {"h100", cuda_card("NVIDIA H100 80GB HBM3", 90, 132, 228 * kKiB, 50 * kMiB, 3352)},
      {"h200", cuda_card("NVIDIA H200", 90, 132, 228 * kKiB, 50 * kMiB, 4800)},
      {"rtx4090", cuda_card("NVIDIA GeForce RTX 4090", 89, 128, 100 * kKiB, 72 * kMiB, 1008)},
      // A Raspberry Pi 5 class board (BCM2712: 4 cores, 2 MiB shared L3).
      {"cortex-a76", arm_cpu("Cortex-A76", 4, 64 * kKiB, 512 * kKiB, 2 * kMiB), "0xd0b"},
      // An AWS Graviton2 class server (64 cores, 32 MiB system-level cache).
      {"neoverse-n1", arm_cpu("Neoverse-N1", 64, 64 * kKiB, 1 * kMiB, 32 * kMiB), "0xd0c"},
      // An AWS Graviton3 class server (64 cores, 32 MiB system-level cache).
      {"neoverse-v1", arm_cpu("Neoverse-V1", 64, 64 * kKiB, 1 * kMiB, 32 * kMiB), "0xd40"},
  };
  return table;
}

const Device* find_known_device(const std::string& name) {
  for (const KnownDevice& known : known_devices()) {
    if (known.name == name) return &known.device;
  }
  return nullptr;
}

std::vector<std::string> known_device_names_of(DeviceKind kind) {
  std::vector<std::string> names;
  for (const KnownDevice& known : known_devices()) {
    if (known.device.kind == kind) names.push_back(known.name);
  }
  return names;
}

Device identify_known_cpu(const CpuInfo& cpuinfo, const Device& detected) {
  if (cpuinfo.vendor != "0x41" || cpuinfo.part.empty()) return detected;
  for (const KnownDevice& known : known_devices()) {
    if (known.arm_part != cpuinfo.part) continue;
    if (known.device.cores == detected.cores) return known.device;
    Device d = detected;
    d.cpu_model = known.device.cpu_model;
    d.halide_target = known.device.halide_target;
    return d;
  }
  return detected;
}

}  // namespace ktune::targets
