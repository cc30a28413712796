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

}  // namespace

const std::vector<KnownDevice>& known_devices() {
  static const std::vector<KnownDevice> table = {
      {"a100", cuda_card("NVIDIA A100-SXM4-80GB", 80, 108, 164 * kKiB, 40 * kMiB, 2039)},
      {"h100", cuda_card("NVIDIA H100 80GB HBM3", 90, 132, 228 * kKiB, 50 * kMiB, 3352)},
      {"h200", cuda_card("NVIDIA H200", 90, 132, 228 * kKiB, 50 * kMiB, 4800)},
      {"rtx4090", cuda_card("NVIDIA GeForce RTX 4090", 89, 128, 100 * kKiB, 72 * kMiB, 1008)},
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

}  // namespace ktune::targets
