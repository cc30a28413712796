#include "scheduler/target_info.h"

#include "targets/device.h"

namespace ktune::scheduler {

int vector_lanes_of(const std::string& target) {
  if (target.find("avx512") != std::string::npos) return 16;
  if (target.find("avx") != std::string::npos) return 8;
  return 4;
}

TargetInfo target_info_from_device(const targets::Device& device) {
  TargetInfo t;
  t.halide_target = device.halide_target;
  t.vector_lanes = vector_lanes_of(device.halide_target);
  t.cores = device.cores;
  if (device.l1d_bytes > 0) t.l1_bytes = device.l1d_bytes;
  if (device.l2_bytes > 0) t.l2_bytes = device.l2_bytes;
  if (device.llc_bytes > 0) t.llc_bytes = device.llc_bytes;
  return t;
}

}  // namespace ktune::scheduler
