// What the schedule space needs to know about the target: for a CPU its vector width,
// cores and cache sizes; for a CUDA GPU the limits a block must respect (threads, shared
// memory, registers). Built from a targets::Device (or defaults for tests).
#pragma once

#include <cstdint>
#include <string>

#include "targets/device.h"

namespace ktune::scheduler {

struct TargetInfo {
  targets::DeviceKind kind = targets::DeviceKind::kCpu;  // what runs the kernels (targets::Device::kind)
  std::string halide_target = "host";  // Halide target string kernels are compiled for
  int vector_lanes = 8;                // float32 lanes of one native vector (16 with AVX-512, 4 with NEON)
  int vector_registers = 16;           // architectural vector registers (32 with AVX-512 and on AArch64)
  int cores = 2;                       // parallel threads a kernel gets
  int64_t l1_bytes = 32 * 1024;        // per-core L1 data cache
  int64_t l2_bytes = 1024 * 1024;      // per-core L2 (on a GPU: the whole L2)
  int64_t llc_bytes = 32 * 1024 * 1024;  // last-level cache

  // CUDA only (meaningless on a CPU).
  int max_threads_per_block = 1024;         // most threads one block may have
  int64_t shared_bytes_per_block = 48 * 1024;  // static shared memory one block may use
  int64_t shared_bytes_per_sm = 0;          // shared memory of one SM (0 = unknown)
  int sm_count = 0;                         // streaming multiprocessors (0 = unknown)
  int registers_per_sm = 65536;             // 32-bit registers of one SM
  double memory_gbps = 0;                   // peak DRAM bandwidth, GB/s (0 = unknown)

  bool is_gpu() const { return kind == targets::DeviceKind::kCuda; }
};

TargetInfo target_info_from_device(const targets::Device& device);

// A CUDA target for tests and tools: the known card `name` ("a100", "h100", ...).
// Returns a CPU TargetInfo when the name is unknown.
TargetInfo cuda_target_info(const std::string& name);

// Float32 lanes of the widest vector unit named in a Halide target string: 16 with
// AVX-512, 8 with AVX, 4 otherwise (SSE, and 128-bit NEON on Arm).
int vector_lanes_of(const std::string& halide_target);

// Vector registers a kernel of the target can hold values in: 32 on AArch64 and with
// AVX-512, 16 on other x86.
int vector_registers_of(const std::string& halide_target);

}  // namespace ktune::scheduler
