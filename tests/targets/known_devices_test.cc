// The one table of devices known by name: distinct lowercase names and keys, every row found
// by its name and resolved by the --device resolver, listed by kind; the Arm CPU rows, and an
// Arm machine that recognises itself as its row.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "targets/device_lookup.h"
#include "targets/host_detect.h"
#include "targets/known_devices.h"

namespace ktune::targets {
namespace {

TEST(KnownDevices, EveryRowHasADistinctLowercaseNameAndKeyAndResolvesByName) {
  std::set<std::string> names, keys;
  for (const KnownDevice& known : known_devices()) {
    for (char c : known.name) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << known.name;
    EXPECT_NE(known.name, "host");
    EXPECT_NE(known.name, "cuda");
    names.insert(known.name);
    keys.insert(device_key(known.device));
    ASSERT_NE(find_known_device(known.name), nullptr);
    EXPECT_EQ(device_key(*find_known_device(known.name)), device_key(known.device));
    EXPECT_TRUE(is_known_device_name(known.name));
    EXPECT_EQ(resolve_device_key(known.name), device_key(known.device));
  }
  EXPECT_EQ(names.size(), known_devices().size());
  EXPECT_EQ(keys.size(), known_devices().size());
  EXPECT_EQ(find_known_device("no_such_card"), nullptr);
}

TEST(KnownDevices, NamesOfAKindFollowTheTable) {
  const std::vector<std::string> gpus = known_device_names_of(DeviceKind::kCuda);
  ASSERT_FALSE(gpus.empty());
  EXPECT_EQ(gpus.front(), "a100");
  for (const std::string& name : gpus) EXPECT_TRUE(find_known_device(name)->is_gpu()) << name;
  EXPECT_EQ(known_device_names_of(DeviceKind::kCpu),
            (std::vector<std::string>{"cortex-a76", "neoverse-n1", "neoverse-v1"}));
}

TEST(KnownDevices, ArmRowsAreAArch64CpusWithDotProductAndHalfFloats) {
  for (const std::string& name : known_device_names_of(DeviceKind::kCpu)) {
    const Device& d = *find_known_device(name);
    EXPECT_EQ(d.halide_target.rfind("arm-64-linux", 0), 0u) << name;
    EXPECT_NE(d.halide_target.find("arm_dot_prod"), std::string::npos) << name;
    EXPECT_NE(d.halide_target.find("arm_fp16"), std::string::npos) << name;
    EXPECT_EQ(d.vendor, "0x41") << name;
    EXPECT_GT(d.cores, 1) << name;
    EXPECT_GT(d.llc_bytes, d.l2_bytes) << name;
    EXPECT_GT(d.l2_bytes, d.l1d_bytes) << name;
  }
}

// /proc/cpuinfo of a Raspberry Pi 5 (four Cortex-A76 cores), as its kernel prints it.
constexpr const char* kPi5CpuInfo =
    "processor\t: 0\nBogoMIPS\t: 108.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n"
    "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x4\nCPU part\t: 0xd0b\nCPU revision\t: 1\n\n"
    "processor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n";

TEST(KnownDevices, AnArmMachineRecognisesItselfAsItsRowAndGetsItsKey) {
  const CpuInfo info = parse_cpuinfo(kPi5CpuInfo);
  EXPECT_EQ(info.part, "0xd0b");
  Device detected;  // what host detection reads on the board
  detected.vendor = info.vendor;
  detected.cpu_model = "unknown";  // the Pi's kernel prints no model name
  detected.cores = 4;
  detected.isa_features = isa_features_from_flags(info.flags);
  detected.l1d_bytes = 64 * 1024;
  detected.halide_target = "arm-64-linux-arm_dot_prod-arm_fp16-armv81a";
  const Device& a76 = *find_known_device("cortex-a76");
  EXPECT_EQ(device_key(identify_known_cpu(info, detected)), device_key(a76));

  // The same core with two cores online keeps what it has, named and targeted as an A76.
  detected.cores = 2;
  const Device two = identify_known_cpu(info, detected);
  EXPECT_NE(device_key(two), device_key(a76));
  EXPECT_EQ(two.cores, 2);
  EXPECT_EQ(two.cpu_model, "Cortex-A76");
  EXPECT_EQ(two.halide_target, a76.halide_target);

  // An unknown part, and any x86 machine, are left as detected.
  CpuInfo other = info;
  other.part = "0xd03";  // Cortex-A53
  EXPECT_EQ(identify_known_cpu(other, detected), detected);
  EXPECT_EQ(identify_known_cpu(parse_cpuinfo("vendor_id\t: AuthenticAMD\n"), detected), detected);
}

}  // namespace
}  // namespace ktune::targets
