// Device: what a schedule is tuned for, the Halide target string plus the hardware
// fingerprint that changes how fast a kernel runs. Its key (`device_key`) is part of every
// tuning-database row, so it must be stable across processes and runs on one machine:
//   const Device d = detect_host_device();  // targets/host_detect.h
//   db.upsert_device(device_key(d), to_json(d));
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ktune::targets {

// What runs a device's kernels. The one place that says whether a device is a GPU.
enum class DeviceKind {
  kCpu,   // the CPU itself
  kCuda,  // a CUDA GPU, its kernels launched from a host CPU
};

// "cpu" or "cuda": the kind's name in device descriptions, keys and messages.
const char* to_string(DeviceKind kind);

// The kind named `name` ("cpu", "cuda"); nullopt for any other text.
std::optional<DeviceKind> parse_device_kind(const std::string& name);

// What a CUDA GPU brings to scheduling: the limits validators enforce and the sizes the
// cost model weighs. Meaningful only for a DeviceKind::kCuda device.
struct GpuInfo {
  // Marketing name as the driver reports it ("NVIDIA H100 80GB HBM3").
  std::string name;
  // Compute capability as major*10+minor: 80 for sm_80 (A100), 90 for sm_90 (H100).
  int compute_capability = 0;
  // Streaming multiprocessors.
  int sm_count = 0;
  // Most threads one block may have.
  int max_threads_per_block = 1024;
  // Shared memory one block may use without opting in to more (Halide allocates
  // statically, so this is its limit), in bytes.
  int64_t shared_bytes_per_block = 48 * 1024;
  // Shared memory of one SM, shared by the blocks resident on it, in bytes.
  int64_t shared_bytes_per_sm = 0;
  // 32-bit registers of one SM.
  int registers_per_sm = 65536;
  // L2 cache size in bytes.
  int64_t l2_bytes = 0;
  // Peak DRAM bandwidth in GB/s (10^9 bytes per second).
  double memory_gbps = 0;
};

bool operator==(const GpuInfo& a, const GpuInfo& b);

// A device kernels are tuned for: a CPU, or a CUDA GPU driven by a host CPU. For a GPU the CPU fields describe nothing in particular (kernels spend their time
// on the GPU) and `gpu` holds what matters.
struct Device {
  // What runs the kernels.
  DeviceKind kind = DeviceKind::kCpu;
  // CPU vendor as the kernel reports it ("GenuineIntel", "AuthenticAMD", "0x41" on Arm);
  // empty when unknown.
  std::string vendor;
  // CPU model name from /proc/cpuinfo ("Intel(R) Xeon(R) Processor"); "unknown" when absent.
  std::string cpu_model;
  // Logical CPUs this process may run on (its affinity mask), i.e. the parallelism a
  // kernel gets; >= 1.
  int cores = 1;
  // Hardware threads per physical core (2 with SMT on); >= 1.
  int threads_per_core = 1;
  // Instruction-set extensions useful to code generation (SIMD, FMA, AES, ...), lowercase
  // names as in /proc/cpuinfo, sorted and unique; may be empty.
  std::vector<std::string> isa_features;
  // Size of one L1 data cache instance (per core) in bytes; -1 when unknown.
  int64_t l1d_bytes = -1;
  // Size of one L2 cache instance in bytes (per core on most x86); -1 when unknown.
  int64_t l2_bytes = -1;
  // Size of one last-level cache instance in bytes (shared by the cores of a socket or
  // CCX, not summed over instances); equals l2_bytes when there is no L3; -1 when unknown.
  int64_t llc_bytes = -1;
  // Halide target string kernels are compiled for, e.g. "x86-64-linux-avx-avx2-fma-sse41",
  // or "x86-64-linux-sse41-cuda-cuda_capability_80" for a GPU.
  std::string halide_target;
  // The GPU, when kind is kCuda.
  GpuInfo gpu;

  // True for a GPU: kernels are launched on it, and `gpu` describes it.
  bool is_gpu() const { return kind == DeviceKind::kCuda; }
};

bool operator==(const Device& a, const Device& b);
inline bool operator!=(const Device& a, const Device& b) { return !(a == b); }

// Stable identity of a device: 32 hex digits hashing a canonical JSON of only what changes
// kernel performance. For a CPU: kind, Halide target, CPU model, cores, threads per core,
// cache sizes; vendor and ISA features are left out (the model implies the vendor, and
// generated code only uses the extensions named in the Halide target). For a GPU: kind,
// Halide target and every GpuInfo field; the host CPU is left out.
std::string device_key(const Device& device);

// The canonical JSON text that device_key hashes (exposed for tests and debugging).
std::string device_key_text(const Device& device);

// Full description as a JSON object, every field of Device.
nlohmann::json to_json(const Device& device);

// Parses what to_json wrote. Throws ktune::UserError naming `where` (a file or table; may
// be empty) and the field when a field is missing or has the wrong type or range.
// Unknown fields are ignored so older readers accept newer descriptions.
Device device_from_json(const nlohmann::json& json, const std::string& where = "");

// One readable line: "AMD EPYC, 2 cores, AVX-512, L1d 48 KiB, L2 1 MiB, LLC 32 MiB,
// target x86-64-linux-avx-avx2-..."; for a GPU "NVIDIA H100 SXM (sm_90), 132 SMs, ...".
std::string describe(const Device& device);

// A name for tables: "AMD EPYC, 2 cores, AVX-512"; for a GPU "NVIDIA H100 SXM (sm_90)".
std::string short_name(const Device& device);

// "48 KiB", "2 MiB", "1536 B", "?" for -1: the unit is the largest that divides exactly.
std::string format_bytes(int64_t bytes);

}  // namespace ktune::targets
