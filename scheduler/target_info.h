// What the schedule space needs to know about the target: vector width, cores and cache
// sizes. Built from a targets::Device (or defaults for tests).
#pragma once

#include <cstdint>
#include <string>

namespace ktune::targets {
struct Device;
}

namespace ktune::scheduler {

struct TargetInfo {
  std::string halide_target = "host";  // Halide target string kernels are compiled for
  int vector_lanes = 8;                // float32 lanes of one native vector (16 with AVX-512)
  int cores = 2;                       // parallel threads a kernel gets
  int64_t l1_bytes = 32 * 1024;        // per-core L1 data cache
  int64_t l2_bytes = 1024 * 1024;      // per-core L2
  int64_t llc_bytes = 32 * 1024 * 1024;  // last-level cache
};

TargetInfo target_info_from_device(const targets::Device& device);

// Float32 lanes of the widest vector unit named in a Halide target string.
int vector_lanes_of(const std::string& halide_target);

}  // namespace ktune::scheduler
