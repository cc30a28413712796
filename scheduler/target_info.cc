#include "scheduler/target_info.h"

#include "targets/device.h"
#include "targets/known_devices.h"

namespace ktune::scheduler {

int vector_lanes_of(const std::string& target) {
  if (target.find("avx512") != std::string::npos) return 16;
  if (target.find("avx") != std::string::npos) return 8;
  return 4;
}

int vector_registers_of(const std::string& target) {
  if (target.rfind("arm-64", 0) == 0 || target.find("avx512") != std::string::npos) return 32;
  return 16;
}

TargetInfo target_info_from_device(const targets::Device& device) {
  TargetInfo t;
  t.kind = device.kind;
  t.halide_target = device.halide_target;
  t.vector_lanes = vector_lanes_of(device.halide_target);
  t.vector_registers = vector_registers_of(device.halide_target);
  t.cores = device.cores;
  if (device.l1d_bytes > 0) t.l1_bytes = device.l1d_bytes;
  if (device.l2_bytes > 0) t.l2_bytes = device.l2_bytes;
  if (device.llc_bytes > 0) t.llc_bytes = device.llc_bytes;
  if (device.is_gpu()) {
    const targets::GpuInfo& g = device.gpu;
    if (g.max_threads_per_block > 0) t.max_threads_per_block = g.max_threads_per_block;
    if (g.shared_bytes_per_block > 0) t.shared_bytes_per_block = g.shared_bytes_per_block;
    t.shared_bytes_per_sm = g.shared_bytes_per_sm;
    t.sm_count = g.sm_count;
    if (g.registers_per_sm > 0) t.registers_per_sm = g.registers_per_sm;
    t.memory_gbps = g.memory_gbps;
    if (g.l2_bytes > 0) t.l2_bytes = t.llc_bytes = g.l2_bytes;
  }
  return t;
}

TargetInfo cuda_target_info(const std::string& name) {
  const targets::Device* d = targets::find_known_device(name);
  return d ? target_info_from_device(*d) : TargetInfo{};
}

}  // namespace ktune::scheduler
