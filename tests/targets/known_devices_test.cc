// The one table of devices known by name: distinct lowercase names and keys, every row found
// by its name and resolved by the --device resolver, and listed by kind.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "targets/device_lookup.h"
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
  EXPECT_TRUE(known_device_names_of(DeviceKind::kCpu).empty());  // no Arm rows yet
}

}  // namespace
}  // namespace ktune::targets
