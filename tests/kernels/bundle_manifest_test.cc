// The bundle manifest, one type written by `ktune bundle` and read by `ktune ingest`: it
// round-trips through JSON, and every malformed field is refused naming the file and field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "kernels/bundle_manifest.h"
#include "targets/device_lookup.h"
#include "targets/host_detect.h"

namespace ktune::kernels {
namespace {

using ::testing::HasSubstr;

BundleManifest sample_manifest() {
  BundleManifest m;
  m.ktune_version = "9.9.9";
  m.halide_version = "14";
  m.halide_target = "x86-64-linux-avx2";
  m.seed = 7;
  m.device_name = "h100";
  m.device = targets::device_by_name("h100");
  m.device_key = targets::device_key(m.device);
  m.library = "lib/libktune_bundle.a";
  BundleCandidate c;
  c.id = 0;
  c.function = "ktune_c0";
  c.workload_name = "softmax";
  c.workload_key = "abc123";
  c.spec = "specs/0_softmax.json";
  c.origin = "heuristic";
  c.inputs = {{"x", "f32", {64, 256}, {0, 0}, "test_data/spec0/x.f32"}};
  c.outputs = {{"y", "f32", {64, 256}, {0, 0}, "test_data/spec0/y.ref.f32"}};
  c.schedule_hash = c.schedule.hash();
  m.candidates.push_back(c);
  c.id = 1;
  c.function = "ktune_c1";
  c.origin = "sample";
  m.candidates.push_back(c);
  return m;
}

// The message of the UserError that parsing `j` throws; empty when it parses.
std::string parse_error(const nlohmann::json& j) {
  try {
    bundle_manifest_from_json(j, "b/manifest.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(BundleManifest, RoundTripsThroughJson) {
  const BundleManifest m = sample_manifest();
  const nlohmann::json j = nlohmann::json::parse(to_json(m).dump());
  const BundleManifest back = bundle_manifest_from_json(j, "b/manifest.json");
  EXPECT_EQ(back.format, kBundleFormat);
  EXPECT_EQ(back.device_key, m.device_key);
  EXPECT_TRUE(back.device.is_gpu());
  EXPECT_EQ(back.seed, 7u);
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.candidates[1].function, "ktune_c1");
  EXPECT_EQ(back.candidates[1].origin, "sample");
  EXPECT_EQ(back.candidates[0].inputs.at(0).shape, (std::vector<int64_t>{64, 256}));
  EXPECT_EQ(back.candidates[0].outputs.at(0).file, "test_data/spec0/y.ref.f32");
  EXPECT_EQ(back.candidates[0].schedule, m.candidates[0].schedule);
  EXPECT_EQ(to_json(back).dump(), to_json(m).dump());
}

TEST(BundleManifest, AMissingOrMistypedFieldIsNamedWithTheFile) {
  nlohmann::json j = nlohmann::json::parse(to_json(sample_manifest()).dump());
  nlohmann::json no_spec = j;
  no_spec["candidates"][1].erase("spec");
  EXPECT_THAT(parse_error(no_spec), HasSubstr("b/manifest.json"));
  EXPECT_THAT(parse_error(no_spec), HasSubstr("candidates[1].spec"));

  nlohmann::json bad_shape = j;
  bad_shape["candidates"][0]["inputs"][0]["shape"] = "64x256";
  EXPECT_THAT(parse_error(bad_shape), HasSubstr("candidates[0].inputs[0].shape"));

  nlohmann::json not_list = j;
  not_list["candidates"] = 3;
  EXPECT_THAT(parse_error(not_list), HasSubstr("candidates"));
}

TEST(BundleManifest, AnotherFormatAKeyOfAnotherDeviceAndRepeatedIdsAreRefused) {
  nlohmann::json j = nlohmann::json::parse(to_json(sample_manifest()).dump());
  nlohmann::json format = j;
  format["format"] = "ktune-bundle-0";
  EXPECT_THAT(parse_error(format), HasSubstr("rebuild the bundle"));

  nlohmann::json key = j;
  key["device"]["key"] = targets::device_key(targets::detect_host_device());
  EXPECT_THAT(parse_error(key), HasSubstr("device.key"));

  nlohmann::json ids = j;
  ids["candidates"][1]["id"] = 0;
  EXPECT_THAT(parse_error(ids), HasSubstr("candidates[1].id"));
  EXPECT_EQ(parse_error(j), "");
}

}  // namespace
}  // namespace ktune::kernels
