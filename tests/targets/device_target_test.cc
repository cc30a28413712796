// --target against --device (device_target.h) and the device `ktune tune` measures on
// (tuning_device.h): this CPU by default, a GPU only when this machine has one like it,
// otherwise a UserError that names the bundle workflow.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "targets/cuda_devices.h"
#include "targets/device_lookup.h"
#include "targets/device_target.h"
#include "targets/host_detect.h"
#include "targets/tuning_device.h"

namespace ktune::targets {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceTarget, TargetNamesTheKindOfTheDevice) {
  const Device host = detect_host_device();
  const Device h100 = device_by_name("h100");
  EXPECT_EQ(target_kind(host), "host");
  EXPECT_EQ(target_kind(h100), "cuda");
  EXPECT_EQ(error_of([&] { check_device_target("", "h100", h100); }), "");
  EXPECT_EQ(error_of([&] { check_device_target("cuda", "h100", h100); }), "");
  const std::string wrong = error_of([&] { check_device_target("cuda", "host", host); });
  EXPECT_THAT(wrong, HasSubstr("--target cuda but --device host is a cpu device"));
  EXPECT_THAT(error_of([&] { check_device_target("host", "h100", h100); }), HasSubstr("name a CPU (host)"));
}

TEST(TuningDevice, DefaultsToThisCpuAndRefusesAGpuThisMachineLacks) {
  EXPECT_EQ(device_key(tuning_device("", "")), device_key(detect_host_device()));
  EXPECT_EQ(device_key(tuning_device("HOST", "host")), device_key(detect_host_device()));  // names are case-blind
  if (!detect_cuda_devices().devices.empty()) GTEST_SKIP() << "this machine has a GPU";
  const std::string missing = error_of([] { tuning_device("h100", ""); });
  EXPECT_THAT(missing, HasSubstr("this machine has none"));
  EXPECT_THAT(missing, HasSubstr("ktune bundle SPEC... --device h100"));
  EXPECT_NE(error_of([] { tuning_device("", "cuda"); }), "");
}

TEST(TuningDevice, AKnownArmCpuIsRefusedOnAnotherMachineWithTheBundleWorkflow) {
  if (device_key(detect_host_device()) == device_key(device_by_name("cortex-a76"))) GTEST_SKIP() << "this is one";
  const std::string refused = error_of([] { tuning_device("cortex-a76", ""); });
  EXPECT_THAT(refused, HasSubstr("is a Cortex-A76 CPU and this machine is not one"));
  EXPECT_THAT(refused, HasSubstr("ktune bundle SPEC... --device cortex-a76"));
  EXPECT_THAT(error_of([] { tuning_device("neoverse-n1", "cuda"); }), HasSubstr("--device"));
}

}  // namespace
}  // namespace ktune::targets
