#include "tools/autoschedule_ktune/target_device.h"

#include <Halide.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "schedule_store/db_records.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"

namespace ktune::autoschedule {
namespace {

using Halide::Target;
using ::testing::HasSubstr;

TEST(SameMachine, BuildOnlyFeaturesDoNotChangeTheMachine) {
  const Target t("x86-64-linux-avx-avx2-fma-sse41");
  EXPECT_TRUE(same_machine(t, t));
  EXPECT_TRUE(same_machine(Target("x86-64-linux-avx-avx2-fma-sse41-no_runtime-no_asserts-user_context"), t));
}

TEST(SameMachine, OtherInstructionSetsArchitecturesOrSystemsDo) {
  const Target t("x86-64-linux-avx-avx2-fma-sse41");
  EXPECT_FALSE(same_machine(Target("x86-64-linux-sse41"), t));
  EXPECT_FALSE(same_machine(Target("x86-64-linux-avx-avx2-avx512-fma-sse41"), t));
  EXPECT_FALSE(same_machine(Target("x86-64-osx-avx-avx2-fma-sse41"), t));
  EXPECT_FALSE(same_machine(Target("arm-64-linux"), t));
}

class ChooseDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("ktune_choose_device_" + std::to_string(::getpid()) + ".db")).string();
    std::filesystem::remove(path_);
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  }
  std::string path_;
};

TEST_F(ChooseDevice, TheHostTargetMeansTheHostDevice) {
  tuning_db::TuningDb db = tuning_db::TuningDb::open(path_, {});
  const DeviceChoice c = choose_device(Halide::get_host_target().with_feature(Target::NoRuntime), "", db);
  EXPECT_EQ(c.key, targets::device_key(targets::detect_host_device()));
  ASSERT_TRUE(c.device.has_value());
}

TEST_F(ChooseDevice, AnotherTargetMeansNoDeviceAndSaysHowToNameOne) {
  tuning_db::TuningDb db = tuning_db::TuningDb::open(path_, {});
  const DeviceChoice c = choose_device(Target("arm-64-linux"), "", db);
  EXPECT_TRUE(c.key.empty());
  EXPECT_THAT(c.reason, HasSubstr("arm-64-linux"));
  EXPECT_THAT(c.reason, HasSubstr("KTUNE_DEVICE"));
}

TEST_F(ChooseDevice, KtuneDeviceNamesAStoredDeviceWhateverTheTarget) {
  tuning_db::TuningDb db = tuning_db::TuningDb::open(path_, {});
  targets::Device other = targets::detect_host_device();
  other.cores += 7;
  other.halide_target = "arm-64-linux";
  db.upsert_device(schedule_store::device_record(other));
  const DeviceChoice c = choose_device(Target("arm-64-linux"), targets::device_key(other), db);
  EXPECT_EQ(c.key, targets::device_key(other));
  ASSERT_TRUE(c.device.has_value());
  EXPECT_EQ(c.device->cores, other.cores);

  const DeviceChoice unknown = choose_device(Target("arm-64-linux"), "0123456789abcdef", db);
  EXPECT_TRUE(unknown.key.empty());
  EXPECT_THAT(unknown.reason, HasSubstr("KTUNE_DEVICE=0123456789abcdef is not a device of"));
}

}  // namespace
}  // namespace ktune::autoschedule
