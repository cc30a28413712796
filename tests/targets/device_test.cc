#include "targets/device.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace ktune::targets {
namespace {

// A Device with every field set to a value that differs from the defaults.
Device sample_device() {
  Device d;
  d.kind = DeviceKind::kCpu;
  d.vendor = "GenuineIntel";
  d.cpu_model = "Intel(R) Xeon(R) Processor";
  d.cores = 2;
  d.threads_per_core = 1;
  d.isa_features = {"avx", "avx2", "avx512f", "fma", "sse4_2"};
  d.l1d_bytes = 48 * 1024;
  d.l2_bytes = 2 * 1024 * 1024;
  d.llc_bytes = 105 * 1024 * 1024;
  d.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";
  return d;
}

// Expects `fn` to throw a UserError whose message contains `field`.
template <typename Fn>
void expect_user_error_naming(Fn fn, const std::string& field) {
  try {
    fn();
    ADD_FAILURE() << "expected a UserError naming " << field;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
        << "message: " << e.what() << "\nshould name: " << field;
  }
}

TEST(DeviceKey, IsPinnedHexAndDeterministic) {
  const std::string key = device_key(sample_device());
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, device_key(sample_device()));
  // The canonical text is part of the on-disk identity: changing it must be deliberate.
  EXPECT_EQ(device_key_text(sample_device()),
            "{\"cores\":2,\"cpu_model\":\"Intel(R) Xeon(R) Processor\","
            "\"halide_target\":\"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41\","
            "\"key_version\":1,\"kind\":\"cpu\",\"l1d_bytes\":49152,\"l2_bytes\":2097152,"
            "\"llc_bytes\":110100480,\"threads_per_core\":1}");
}

TEST(DeviceKey, ChangesWithEveryPerformanceField) {
  const std::string base = device_key(sample_device());
  std::vector<std::pair<std::string, Device>> variants;
  auto add = [&](const std::string& what, auto change) {
    Device d = sample_device();
    change(d);
    variants.emplace_back(what, d);
  };
  add("halide_target", [](Device& d) { d.halide_target = "x86-64-linux-avx-avx2-fma-sse41"; });
  add("cores", [](Device& d) { d.cores = 4; });
  add("cpu_model", [](Device& d) { d.cpu_model = "AMD EPYC"; });
  add("threads_per_core", [](Device& d) { d.threads_per_core = 2; });
  add("l1d_bytes", [](Device& d) { d.l1d_bytes = 32 * 1024; });
  add("l2_bytes", [](Device& d) { d.l2_bytes = 1024 * 1024; });
  add("llc_bytes", [](Device& d) { d.llc_bytes = 32 * 1024 * 1024; });
  for (const auto& [what, device] : variants) {
    EXPECT_NE(device_key(device), base) << "key ignores " << what;
  }
}

TEST(DeviceKey, IgnoresFieldsImpliedByOthers) {
  Device d = sample_device();
  d.vendor = "SomeOtherVendor";
  d.isa_features = {"sse2"};
  // Neither the vendor (implied by the model) nor the flag list (the target decides
  // codegen) may split one machine into two keys.
  EXPECT_EQ(device_key(d), device_key(sample_device()));
  EXPECT_NE(to_json(d), to_json(sample_device()));
}

TEST(DeviceJson, RoundTripsEveryField) {
  const Device d = sample_device();
  const nlohmann::json j = to_json(d);
  EXPECT_EQ(j.at("cores"), 2);
  EXPECT_EQ(j.at("llc_bytes"), 105 * 1024 * 1024);
  EXPECT_EQ(j.at("isa_features").size(), 5u);
  const Device back = device_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back, d);
  EXPECT_EQ(device_key(back), device_key(d));
}

TEST(DeviceJson, AcceptsUnknownCachesAndIgnoresUnknownFields) {
  nlohmann::json j = to_json(sample_device());
  j["llc_bytes"] = -1;
  j["added_in_a_later_version"] = true;
  EXPECT_EQ(device_from_json(j).llc_bytes, -1);
}

TEST(DeviceKind, NamesRoundTripAndOnlyCudaIsAGpu) {
  for (const DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kCuda}) {
    EXPECT_EQ(parse_device_kind(to_string(kind)), kind);
  }
  EXPECT_STREQ(to_string(DeviceKind::kCuda), "cuda");  // the text in keys: keys must not change
  EXPECT_FALSE(parse_device_kind("gpu").has_value());
  Device d = sample_device();
  EXPECT_FALSE(d.is_gpu());
  d.kind = DeviceKind::kCuda;
  EXPECT_TRUE(d.is_gpu());
}

TEST(DeviceJson, ErrorsNameTheField) {
  const nlohmann::json good = to_json(sample_device());
  struct Case {
    const char* field;                // field to break
    nlohmann::json value;             // value put there; null means "remove it"
    const char* expected_in_message;  // text the error must contain
  };
  const std::vector<Case> cases = {
      {"cores", "two", "cores"},
      {"cores", 0, "cores"},
      {"threads_per_core", nullptr, "threads_per_core"},
      {"cpu_model", 7, "cpu_model"},
      {"kind", "gpu", "kind"},
      {"halide_target", "", "halide_target"},
      {"l1d_bytes", 0, "l1d_bytes"},
      {"l2_bytes", -5, "l2_bytes"},
      {"llc_bytes", 1.5, "llc_bytes"},
      {"isa_features", "avx2", "isa_features"},
      {"isa_features", nlohmann::json::array({"avx", 3}), "isa_features[1]"},
      {"vendor", nullptr, "vendor"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    if (c.value.is_null()) {
      j.erase(c.field);
    } else {
      j[c.field] = c.value;
    }
    SCOPED_TRACE(j.dump());
    expect_user_error_naming([&] { device_from_json(j, "devices.json"); }, c.expected_in_message);
    expect_user_error_naming([&] { device_from_json(j, "devices.json"); }, "devices.json");
  }
  expect_user_error_naming([] { device_from_json(nlohmann::json::array()); }, "object");
}

TEST(DeviceDescribe, IsOneReadableLine) {
  const std::string line = describe(sample_device());
  EXPECT_EQ(line,
            "Intel(R) Xeon(R) Processor, 2 cores, AVX-512, L1d 48 KiB, L2 2 MiB, LLC 105 MiB, "
            "target x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41");
  Device smt = sample_device();
  smt.cores = 1;
  smt.threads_per_core = 2;
  smt.isa_features = {"avx2"};
  smt.llc_bytes = -1;
  EXPECT_EQ(describe(smt),
            "Intel(R) Xeon(R) Processor, 1 core (2 threads per core), AVX2, L1d 48 KiB, "
            "L2 2 MiB, LLC ?, target x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41");
}

TEST(DeviceDescribe, ShortNameIsModelCoresAndVectors) {
  EXPECT_EQ(short_name(sample_device()), "Intel(R) Xeon(R) Processor, 2 cores, AVX-512");
  Device gpu;
  gpu.kind = DeviceKind::kCuda;
  gpu.gpu.name = "NVIDIA A100";
  gpu.gpu.compute_capability = 80;
  EXPECT_EQ(short_name(gpu), "NVIDIA A100 (sm_80)");
}

TEST(DeviceDescribe, FormatsBytesWithTheLargestExactUnit) {
  EXPECT_EQ(format_bytes(48 * 1024), "48 KiB");
  EXPECT_EQ(format_bytes(1280 * 1024), "1280 KiB");
  EXPECT_EQ(format_bytes(32 << 20), "32 MiB");
  EXPECT_EQ(format_bytes(int64_t{2} << 30), "2 GiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(-1), "?");
}

}  // namespace
}  // namespace ktune::targets
