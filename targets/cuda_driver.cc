// query_cuda_devices_in_process(): the CUDA driver API, loaded with dlopen so that ktune
// neither links against CUDA nor needs its headers. Only the handful of entry points and attribute numbers
// used here are declared; they are part of the driver's stable ABI.
#include <dlfcn.h>

#include <string>

#include "targets/cuda_devices.h"
#include "targets/host_target.h"

namespace ktune::targets {
namespace {

using CuResult = int;  // CUresult; 0 is CUDA_SUCCESS
using CuDevice = int;  // CUdevice

// CUdevice_attribute values (cuda.h).
enum CuAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kMultiprocessorCount = 16,
  kMemoryClockRate = 36,  // kHz
  kGlobalMemoryBusWidth = 37,  // bits
  kL2CacheSize = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
};

struct Driver {
  CuResult (*init)(unsigned int) = nullptr;
  CuResult (*device_get_count)(int*) = nullptr;
  CuResult (*device_get)(CuDevice*, int) = nullptr;
  CuResult (*device_get_name)(char*, int, CuDevice) = nullptr;
  CuResult (*device_get_attribute)(int*, int, CuDevice) = nullptr;
};

template <typename Fn>
bool load(void* library, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return fn != nullptr;
}

}  // namespace

CudaDetection query_cuda_devices_in_process() {
  CudaDetection result;
  // The driver library stays loaded for the life of the process, as CUDA expects.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    result.problem = std::string("no CUDA driver (libcuda.so.1 could not be loaded: ") +
                     (why ? why : "unknown reason") + ")";
    return result;
  }
  Driver driver;
  if (!load(library, "cuInit", driver.init) ||
      !load(library, "cuDeviceGetCount", driver.device_get_count) ||
      !load(library, "cuDeviceGet", driver.device_get) ||
      !load(library, "cuDeviceGetName", driver.device_get_name) ||
      !load(library, "cuDeviceGetAttribute", driver.device_get_attribute)) {
    result.problem = "the CUDA driver library lacks the device query entry points";
    return result;
  }
  if (CuResult status = driver.init(0); status != 0) {
    result.problem = "cuInit failed with CUDA error " + std::to_string(status) +
                     " (no usable CUDA device, or the driver is not running)";
    return result;
  }
  int count = 0;
  if (driver.device_get_count(&count) != 0 || count == 0) {
    result.problem = "no CUDA device";
    return result;
  }
  const std::string host_target = host_halide_target();
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CuDevice device = 0;
    if (driver.device_get(&device, ordinal) != 0) continue;
    char name[256] = {};
    driver.device_get_name(name, sizeof(name) - 1, device);
    auto attribute = [&](int which) {
      int value = 0;
      return driver.device_get_attribute(&value, which, device) == 0 ? value : 0;
    };
    CudaProperties p;
    p.name = name;
    p.major = attribute(kComputeCapabilityMajor);
    p.minor = attribute(kComputeCapabilityMinor);
    p.sm_count = attribute(kMultiprocessorCount);
    p.max_threads_per_block = attribute(kMaxThreadsPerBlock);
    p.shared_bytes_per_block = attribute(kMaxSharedMemoryPerBlock);
    p.shared_bytes_per_sm = attribute(kMaxSharedMemoryPerMultiprocessor);
    p.registers_per_sm = attribute(kMaxRegistersPerMultiprocessor);
    p.l2_bytes = attribute(kL2CacheSize);
    p.memory_clock_khz = attribute(kMemoryClockRate);
    p.memory_bus_bits = attribute(kGlobalMemoryBusWidth);
    result.devices.push_back(cuda_device_from_properties(p, host_target));
  }
  if (result.devices.empty()) result.problem = "no CUDA device answered the driver's queries";
  return result;
}

}  // namespace ktune::targets
