// CUDA GPUs as ktune devices: their Halide targets, and detection of the GPUs of this
// machine (the known cards by name are rows of targets/known_devices.h) through the CUDA driver, loaded at run time (ktune has no
// link-time dependency on CUDA and runs the same where no driver is installed).
#pragma once

#include <string>
#include <vector>

#include "targets/device.h"

namespace ktune::targets {

// The Halide target for a GPU of `compute_capability` (major*10+minor) driven by a host of
// `host_target` (a CPU Halide target string without GPU features). Halide 14 knows
// capabilities up to 8.6; a newer GPU gets the newest one it supports, whose PTX the
// driver compiles for the card.
std::string cuda_halide_target(int compute_capability, const std::string& host_target);

// The CUDA GPUs of this machine, in driver order.
struct CudaDetection {
  std::vector<Device> devices;  // empty when there is no driver or no device
  std::string problem;          // why `devices` is empty: "no CUDA driver (libcuda.so.1 ...)"
};

// The GPUs of this machine, asked in a short-lived child process so that this process never
// initializes CUDA: a CUDA context does not survive fork(), and the measurement layer forks
// the children that run GPU kernels. Never throws; the result says why nothing was found
// (also when the driver crashed or hung while answering).
CudaDetection detect_cuda_devices();

// Loads libcuda.so.1, initializes it in THIS process and reads every device's attributes.
// A child forked afterwards cannot use CUDA: only detect_cuda_devices' child calls it.
CudaDetection query_cuda_devices_in_process();

// A Device for a GPU with these driver-reported properties (shared by detection and
// tests): memory clock in kHz and bus width in bits give the peak bandwidth.
struct CudaProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int shared_bytes_per_block = 0;
  int shared_bytes_per_sm = 0;
  int registers_per_sm = 0;
  int l2_bytes = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
};
Device cuda_device_from_properties(const CudaProperties& properties,
                                   const std::string& host_target);

}  // namespace ktune::targets
