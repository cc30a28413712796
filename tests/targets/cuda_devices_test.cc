#include "targets/cuda_devices.h"
#include "targets/known_devices.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <set>
#include <string>

#include "common/error.h"
#include "targets/device_lookup.h"

namespace ktune::targets {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(CudaHalideTarget, PicksTheNewestCapabilityHalideKnowsAtOrBelowTheCard) {
  EXPECT_EQ(cuda_halide_target(80, "x86-64-linux"), "x86-64-linux-cuda-cuda_capability_80");
  EXPECT_EQ(cuda_halide_target(75, "x86-64-linux"), "x86-64-linux-cuda-cuda_capability_75");
  // Halide 14 stops at 8.6: Ada (8.9) and Hopper (9.0) get 8.6 PTX, which the driver compiles.
  EXPECT_EQ(cuda_halide_target(89, "x86-64-linux"), "x86-64-linux-cuda-cuda_capability_86");
  EXPECT_EQ(cuda_halide_target(90, "x86-64-linux"), "x86-64-linux-cuda-cuda_capability_86");
  EXPECT_EQ(cuda_halide_target(60, "x86-64-linux"), "x86-64-linux-cuda-cuda_capability_50");
}

TEST(KnownCudaDevices, ResolveByNameWithTheirCapabilities) {
  const Device a100 = device_by_name("a100");
  EXPECT_EQ(a100.kind, DeviceKind::kCuda);
  EXPECT_TRUE(a100.is_gpu());
  EXPECT_EQ(a100.gpu.compute_capability, 80);
  EXPECT_TRUE(ends_with(a100.halide_target, "-cuda-cuda_capability_80")) << a100.halide_target;
  const Device h100 = device_by_name("h100");
  EXPECT_EQ(h100.gpu.compute_capability, 90);
  EXPECT_EQ(h100.gpu.sm_count, 132);
  EXPECT_TRUE(ends_with(h100.halide_target, "-cuda-cuda_capability_86")) << h100.halide_target;
  EXPECT_EQ(find_known_device("v100"), nullptr);

  std::set<std::string> keys;
  for (const std::string& name : known_device_names_of(DeviceKind::kCuda)) {
    const Device d = device_by_name(name);
    EXPECT_GT(d.gpu.shared_bytes_per_sm, d.gpu.shared_bytes_per_block) << name;
    EXPECT_GT(d.gpu.memory_gbps, 100.0) << name;
    keys.insert(device_key(d));
  }
  EXPECT_EQ(keys.size(), known_device_names_of(DeviceKind::kCuda).size()) << "two known cards share a key";
}

TEST(CudaDeviceKey, ChangesWithEveryGpuFieldAndIgnoresTheHostCpu) {
  const Device base = device_by_name("h100");
  const std::string key = device_key(base);
  std::vector<std::pair<std::string, Device>> variants;
  auto add = [&](const std::string& what, auto change) {
    Device d = base;
    change(d);
    variants.emplace_back(what, d);
  };
  add("name", [](Device& d) { d.gpu.name = "NVIDIA H100 PCIe"; });
  add("capability", [](Device& d) { d.gpu.compute_capability = 89; });
  add("sms", [](Device& d) { d.gpu.sm_count = 114; });
  add("threads", [](Device& d) { d.gpu.max_threads_per_block = 512; });
  add("shared/block", [](Device& d) { d.gpu.shared_bytes_per_block = 96 * 1024; });
  add("shared/sm", [](Device& d) { d.gpu.shared_bytes_per_sm = 100 * 1024; });
  add("registers", [](Device& d) { d.gpu.registers_per_sm = 32768; });
  add("l2", [](Device& d) { d.gpu.l2_bytes = 40 << 20; });
  add("bandwidth", [](Device& d) { d.gpu.memory_gbps = 2000; });
  add("target", [](Device& d) { d.halide_target += "-debug"; });
  for (const auto& [what, d] : variants) EXPECT_NE(device_key(d), key) << what;

  Device other_host = base;
  other_host.cpu_model = "AMD EPYC";
  other_host.cores = 64;
  EXPECT_EQ(device_key(other_host), key);
}

TEST(CudaDeviceJson, RoundTripsAndNamesBadGpuFields) {
  const Device h100 = device_by_name("h100");
  const Device back = device_from_json(to_json(h100), "devices.json");
  EXPECT_EQ(back, h100);
  EXPECT_EQ(device_key(back), device_key(h100));

  nlohmann::json broken = to_json(h100);
  broken["gpu"]["sm_count"] = 0;
  try {
    device_from_json(broken, "devices.json");
    ADD_FAILURE() << "sm_count 0 was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu.sm_count"), std::string::npos) << e.what();
  }
  broken = to_json(h100);
  broken.erase("gpu");
  EXPECT_THROW(device_from_json(broken, "devices.json"), UserError);
}

TEST(CudaDeviceFromProperties, DerivesBandwidthAndCapability) {
  CudaProperties p;
  p.name = "NVIDIA A100-SXM4-80GB";
  p.major = 8;
  p.minor = 0;
  p.sm_count = 108;
  p.max_threads_per_block = 1024;
  p.shared_bytes_per_block = 49152;
  p.shared_bytes_per_sm = 167936;
  p.registers_per_sm = 65536;
  p.l2_bytes = 41943040;
  p.memory_clock_khz = 1593000;
  p.memory_bus_bits = 5120;
  const Device d = cuda_device_from_properties(p, "x86-64-linux-avx2");
  EXPECT_EQ(d.gpu.compute_capability, 80);
  // 2 transfers per clock x 1.593 GHz x 640 bytes = 2039 GB/s, the data-sheet figure.
  EXPECT_NEAR(d.gpu.memory_gbps, 2039.0, 1.0);
  EXPECT_EQ(d.halide_target, "x86-64-linux-avx2-cuda-cuda_capability_80");
  EXPECT_NE(describe(d).find("(sm_80), 108 SMs"), std::string::npos) << describe(d);
}

TEST(CudaDetect, FindsDevicesOrSaysWhyNot) {
  const CudaDetection detected = detect_cuda_devices();
  if (detected.devices.empty()) {
    EXPECT_FALSE(detected.problem.empty());
    try {
      device_by_name("cuda");
      ADD_FAILURE() << "device_by_name(\"cuda\") succeeded without a GPU";
    } catch (const UserError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(detected.problem), std::string::npos) << message;
      EXPECT_NE(message.find("h100"), std::string::npos) << message;
    }
  } else {
    for (const Device& d : detected.devices) {
      EXPECT_EQ(d.kind, DeviceKind::kCuda);
      EXPECT_GE(d.gpu.compute_capability, 30);
      EXPECT_GT(d.gpu.sm_count, 0);
    }
    EXPECT_EQ(device_by_name("cuda"), detected.devices.front());
  }
}

// Detection asks the driver in a child: this process never loads or initializes CUDA, so
// the GPU kernels of children it forks later can.
TEST(CudaDetect, LeavesThisProcessWithoutTheDriver) {
  const CudaDetection detected = detect_cuda_devices();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) EXPECT_EQ(line.find("libcuda.so"), std::string::npos) << line;
  EXPECT_EQ(detected.devices.empty(), !detected.problem.empty()) << detected.problem;
}

}  // namespace
}  // namespace ktune::targets
