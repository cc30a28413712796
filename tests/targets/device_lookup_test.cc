// The one resolver of device names (targets/device_lookup.h): host and the known cards by
// name, any other name as the key of a stored description that must hash to it, and
// messages that say what is accepted.
#include "targets/device_lookup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "common/error.h"
#include "targets/host_detect.h"

namespace ktune::targets {
namespace {

using ::testing::HasSubstr;

// A stand-in for a tuning database's devices table.
StoredDescription table(const std::map<std::string, std::string>& rows) {
  return [rows](const std::string& key) -> std::optional<std::string> {
    auto it = rows.find(key);
    if (it == rows.end()) return std::nullopt;
    return it->second;
  };
}

std::string error_of(const std::string& name, const StoredDescription& stored) {
  try {
    resolve_device(name, stored, "--device");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

Device other_cpu() {
  Device d = detect_host_device();
  d.cores += 5;
  return d;
}

TEST(DeviceLookup, NamesNeedNoDatabase) {
  EXPECT_EQ(device_key(resolve_device("host", nullptr, "--device")), device_key(detect_host_device()));
  const Device h100 = resolve_device("h100", nullptr, "--device");
  EXPECT_TRUE(h100.is_gpu());
  EXPECT_EQ(resolve_device_key("h100"), device_key(h100));
  EXPECT_EQ(resolve_device_key("host"), device_key(detect_host_device()));
  EXPECT_EQ(resolve_device_key("0123abcd"), "0123abcd");  // any other name is a key
  EXPECT_TRUE(is_known_device_name("a100"));
  EXPECT_FALSE(is_known_device_name("0123abcd"));
}

TEST(DeviceLookup, AKeyIsTheStoredDeviceCheckedAgainstItsKey) {
  const Device cpu = other_cpu();
  const std::string key = device_key(cpu);
  const Device found = resolve_device(key, table({{key, to_json(cpu).dump()}}), "--device");
  EXPECT_EQ(found, cpu);

  // A description of another device under this key is refused, not used.
  const std::string wrong = error_of(key, table({{key, to_json(detect_host_device()).dump()}}));
  EXPECT_THAT(wrong, HasSubstr("--device " + key));
  EXPECT_THAT(wrong, HasSubstr("stored by another ktune?"));
  EXPECT_THAT(error_of(key, table({{key, "{not json"}})), HasSubstr("not valid JSON"));
}

TEST(DeviceLookup, UnknownNamesSayWhatIsAccepted) {
  const std::string with_db = error_of("0123abcd", table({}));
  EXPECT_THAT(with_db, HasSubstr("no device with key \"0123abcd\""));
  EXPECT_THAT(with_db, HasSubstr("accepted names: host, cuda, "));
  const std::string without = error_of("0123abcd", nullptr);
  EXPECT_THAT(without, HasSubstr("unknown device \"0123abcd\""));
  EXPECT_THAT(without, HasSubstr("h100"));
}

}  // namespace
}  // namespace ktune::targets
