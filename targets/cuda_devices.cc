#include "targets/cuda_devices.h"

#include <array>

namespace ktune::targets {
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
