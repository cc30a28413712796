#include "targets/cuda_devices.h"

#include <algorithm>
#include <array>

namespace ktune::targets {
namespace {

// Host part of the Halide target of a GPU on another machine: x86-64 Linux with AVX2,
// which every current GPU server has. The host code only launches kernels.
constexpr const char* kRemoteHostTarget = "x86-64-linux-avx-avx2-f16c-fma-sse41";

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;

Device known(const char* name, int capability, int sms, int64_t shared_per_sm, int64_t l2,
             double gbps) {
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

// Vendor data sheets: SMs, shared memory per SM, L2 and peak DRAM bandwidth.
const std::vector<std::pair<std::string, Device>>& known_table() {
  static const std::vector<std::pair<std::string, Device>> table = {
      {"a100", known("NVIDIA A100-SXM4-80GB", 80, 108, 164 * kKiB, 40 * kMiB, 2039)},
      {"h100", known("NVIDIA H100 80GB HBM3", 90, 132, 228 * kKiB, 50 * kMiB, 3352)},
      {"h200", known("NVIDIA H200", 90, 132, 228 * kKiB, 50 * kMiB, 4800)},
      {"rtx4090", known("NVIDIA GeForce RTX 4090", 89, 128, 100 * kKiB, 72 * kMiB, 1008)},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& known_cuda_device_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, device] : known_table()) out.push_back(name);
    return out;
  }();
  return names;
}

const Device* find_known_cuda_device(const std::string& name) {
  for (const auto& [known_name, device] : known_table()) {
    if (known_name == name) return &device;
  }
  return nullptr;
}

std::string cuda_halide_target(int compute_capability, const std::string& host_target) {
  // The capabilities Halide 14 has target features for, ascending.
  static constexpr std::array<int, 9> kHalideCapabilities = {30, 32, 35, 50, 61, 70, 75, 80, 86};
  int chosen = kHalideCapabilities.front();
  for (int capability : kHalideCapabilities) {
    if (capability <= compute_capability) chosen = capability;
  }
  return host_target + "-cuda-cuda_capability_" + std::to_string(chosen);
}

Device cuda_device_from_properties(const CudaProperties& p, const std::string& host_target) {
  Device d;
  d.kind = DeviceKind::kCuda;
  d.gpu.name = p.name;
  d.gpu.compute_capability = p.major * 10 + p.minor;
  d.gpu.sm_count = p.sm_count;
  d.gpu.max_threads_per_block = p.max_threads_per_block;
  d.gpu.shared_bytes_per_block = p.shared_bytes_per_block;
  d.gpu.shared_bytes_per_sm = p.shared_bytes_per_sm;
  d.gpu.registers_per_sm = p.registers_per_sm;
  d.gpu.l2_bytes = p.l2_bytes;
  // Double data rate: two transfers per clock over the whole bus.
  d.gpu.memory_gbps = 2.0 * p.memory_clock_khz * 1e3 * (p.memory_bus_bits / 8.0) / 1e9;
  d.halide_target = cuda_halide_target(d.gpu.compute_capability, host_target);
  return d;
}

}  // namespace ktune::targets
