#include "scheduler/schedule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;

Schedule example() {
  Schedule s;
  FuncSchedule acc{"C_acc", {ComputeLocation::Kind::kAt, "C", 0, "x_o"}, {}, {}};
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_i", 16}, {"k$x", "k_x_o", "k_x_i", 64}};
  st.order = {"x_i", "k_x_i", "k_x_o", "x_o", "y"};
  st.vectorize = "x_i";
  st.unroll = {};
  acc.stages.push_back(st);
  FuncSchedule c{"C", {ComputeLocation::Kind::kRoot, "", 0, ""}, {}, {}};
  StageSchedule cs;
  cs.splits = {{"x", "x_o", "x_i", 16}};
  cs.parallel = {"y"};
  cs.vectorize = "x_i";
  c.stages.push_back(cs);
  s.funcs = {acc, c};
  return s;
}

TEST(Schedule, JsonRoundTripIsExact) {
  const Schedule s = example();
  const Schedule back = Schedule::from_json(s.to_json(), "t");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.hash(), s.hash());
  EXPECT_EQ(back.to_json().dump(), s.to_json().dump());
}

TEST(Schedule, CanonicalJsonHasIntegersAndOmitsDefaults) {
  const std::string text = example().to_json().dump();
  EXPECT_THAT(text, HasSubstr("\"factor\":16"));
  EXPECT_EQ(text.find("16.0"), std::string::npos);
  EXPECT_EQ(text.find("rfactor"), std::string::npos);
  EXPECT_EQ(text.find("gpu"), std::string::npos);
}

TEST(Schedule, HashIsPinnedAndChangesWithAnyDecision) {
  const Schedule s = example();
  EXPECT_EQ(s.hash().size(), 32u);
  EXPECT_EQ(s.hash(), example().hash());
  Schedule t = s;
  t.funcs[0].stages[0].splits[1].factor = 32;
  EXPECT_NE(t.hash(), s.hash());
  EXPECT_NE(t, s);
  Schedule u = s;
  u.funcs[1].stages[0].parallel.clear();
  EXPECT_NE(u.hash(), s.hash());
  EXPECT_EQ(s.hash(), "177773406c07e734e7196b349cbe0e8b") << "the canonical JSON changed: " << s.to_json().dump();
}

TEST(Schedule, RFactorAndGpuRoundTrip) {
  Schedule s = example();
  s.funcs[0].stages[0].rfactor = RFactor{"k_x_o", true};
  s.funcs[1].stages[0].gpu.blocks = {"y"};
  s.funcs[1].stages[0].gpu.threads = {"x_i"};
  s.funcs[1].stages[0].gpu.memory = "shared";
  EXPECT_EQ(Schedule::from_json(s.to_json(), "t"), s);
}

TEST(Schedule, GpuRFactorRoundTripsAndHashes) {
  Schedule s = example();
  RFactor rf("k_x_i", false);
  rf.splits = {{"x", "x_o", "x_i", 32}};
  rf.gpu.threads = {"x_i", "u"};
  rf.gpu.blocks = {"x_o", "y"};
  s.funcs[0].stages[0].rfactor = rf;
  const Schedule back = Schedule::from_json(s.to_json(), "t");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.hash(), s.hash());
  EXPECT_THAT(s.to_json().dump(),
              HasSubstr(R"("rfactor":{"gpu":{"blocks":["x_o","y"],"threads":["x_i","u"]},"loop":"k_x_i",)"
                        R"("splits":[{"factor":32,"inner":"x_i","loop":"x","outer":"x_o"}]})"));
  // Each new field is part of the identity.
  Schedule t = s;
  t.funcs[0].stages[0].rfactor->splits[0].factor = 16;
  EXPECT_NE(t.hash(), s.hash());
  EXPECT_NE(t, s);
  t = s;
  t.funcs[0].stages[0].rfactor->gpu.threads = {"u", "x_i"};
  EXPECT_NE(t.hash(), s.hash());
  EXPECT_NE(t, s);
}

TEST(Schedule, CpuRFactorKeepsItsCanonicalTextAndHash) {
  // A CPU rfactor as stored before GPU rfactors existed: the same text, and the hash the
  // earlier code gave it.
  Schedule s = example();
  s.funcs[0].stages[0].rfactor = RFactor{"k_x_o", true};
  const std::string text = s.to_json().dump();
  EXPECT_THAT(text, HasSubstr(R"("rfactor":{"loop":"k_x_o","vectorize_u":true},"splits")"));
  EXPECT_EQ(s.hash(), "ad664271d7c54b283624ea389be45c4d") << text;
  EXPECT_EQ(Schedule::from_json(nlohmann::json::parse(text), "t").hash(), s.hash());
}

TEST(Schedule, RFactorPlacementAndPacksRoundTripAndHash) {
  Schedule s = example();
  RFactor rf{"k_x_i", true};
  rf.at_func = true;
  s.funcs[0].stages[0].rfactor = rf;
  InputPack pack;
  pack.input = "B";
  pack.storage = {"y", "x"};
  pack.compute = {ComputeLocation::Kind::kAt, "C", 0, "y"};
  pack.vector_width = 16;
  s.packs = {pack};
  const std::string text = s.to_json().dump();
  EXPECT_THAT(text, HasSubstr(R"("rfactor":{"at_func":true,"loop":"k_x_i","vectorize_u":true})"));
  EXPECT_THAT(text, HasSubstr(R"("packs":[{"compute":{"consumer":"C","consumer_stage":0,"kind":"at","loop":"y"},"input":"B","storage":["y","x"],"vector_width":16}])"));
  const Schedule back = Schedule::from_json(nlohmann::json::parse(text), "t");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.hash(), s.hash());
  // Each new decision is part of the identity.
  Schedule t = s;
  t.packs[0].parallel = true;
  EXPECT_NE(t.hash(), s.hash());
  t = s;
  t.funcs[0].stages[0].rfactor->at_func = false;
  EXPECT_NE(t.hash(), s.hash());
  t = s;
  t.funcs[0].stages[0].rfactor = RFactor{"k_x_o", false};
  t.funcs[0].stages[0].rfactor->pure_vector = 16;
  EXPECT_THAT(t.to_json().dump(), HasSubstr(R"("rfactor":{"loop":"k_x_o","pure_vector":16})"));
  EXPECT_EQ(Schedule::from_json(t.to_json(), "t"), t);
  // No packs: no "packs" key, so earlier schedules keep their text.
  EXPECT_EQ(example().to_json().dump().find("packs"), std::string::npos);
}

std::string error_of(const std::string& text) {
  try {
    Schedule::from_json(nlohmann::json::parse(text), "sched.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Schedule, AStorageOrderRoundTripsAndIsPartOfTheIdentity) {
  Schedule s = example();
  const std::string plain = s.to_json().dump();
  EXPECT_EQ(plain.find("storage"), std::string::npos) << "no storage key without a storage order, so earlier hashes stand";
  s.funcs[0].storage = {"y", "x"};
  const std::string text = s.to_json().dump();
  EXPECT_THAT(text, HasSubstr(R"("storage":["y","x"])"));
  const Schedule back = Schedule::from_json(nlohmann::json::parse(text), "t");
  EXPECT_EQ(back, s);
  EXPECT_EQ(back.hash(), s.hash());
  EXPECT_NE(s.hash(), example().hash());
  EXPECT_THAT(error_of(R"({"funcs": [{"func": "C", "compute": {"kind": "root"}, "storage": "y"}]})"),
              HasSubstr("funcs[0].storage: expected an array of loop names"));
}

TEST(Schedule, FromJsonErrorsNameTheField) {
  EXPECT_THAT(error_of(R"({"funcs": [{"func": "C"}]})"), HasSubstr("sched.json: funcs[0]: missing required field \"compute\""));
  EXPECT_THAT(error_of(R"({"funcs": [{"func": "C", "compute": {"kind": "nowhere"}}]})"),
              HasSubstr("funcs[0].compute.kind: expected inline, root or at, found \"nowhere\""));
  EXPECT_THAT(error_of(R"({"funcs": [{"func": "C", "compute": {"kind": "root"}, "stages": [{"stage": 0, "splits": [{"loop": "x", "outer": "a", "inner": "b", "factor": 1}]}]}]})"),
              HasSubstr("funcs[0].stages[0].splits[0].factor: expected a factor >= 2, found 1"));
  EXPECT_THAT(error_of(R"({"funcs": [{"func": "C", "compute": {"kind": "root"}, "stages": [{"stage": 0, "vectorise": "x"}]}]})"),
              HasSubstr("funcs[0].stages[0].vectorise: unknown field"));
  EXPECT_THAT(error_of(R"({"funcs": [{"func": 3, "compute": {"kind": "root"}}]})"), HasSubstr("funcs[0].func: expected a string"));
  EXPECT_THAT(error_of(R"([1, 2])"), HasSubstr("expected a schedule object"));
  const std::string stage = R"({"funcs": [{"func": "C", "compute": {"kind": "root"}, "stages": [{"stage": 1, "rfactor": )";
  EXPECT_THAT(error_of(stage + R"({"loop": "k", "gpu": {"threads": "u"}}}]}]})"),
              HasSubstr("funcs[0].stages[0].rfactor.gpu.threads: expected an array of loop names"));
  EXPECT_THAT(error_of(stage + R"({"loop": "k", "gpu": {"threads": ["u"], "memory": "shared"}}}]}]})"),
              HasSubstr("funcs[0].stages[0].rfactor.gpu.memory: unknown field"));
  EXPECT_THAT(error_of(stage + R"({"loop": "k", "splits": [{"loop": "x", "outer": "a", "inner": "b", "factor": 0}]}}]}]})"),
              HasSubstr("funcs[0].stages[0].rfactor.splits[0].factor: expected a factor >= 2, found 0"));
  EXPECT_THAT(error_of(stage + R"("k"}]}]})"), HasSubstr("funcs[0].stages[0].rfactor: expected an object"));
  EXPECT_THAT(error_of(stage + R"({"loop": "k", "at_func": 1}}]}]})"),
              HasSubstr("funcs[0].stages[0].rfactor.at_func: expected true or false, found 1"));
  EXPECT_THAT(error_of(stage + R"({"loop": "k", "pure_vector": 1}}]}]})"),
              HasSubstr("funcs[0].stages[0].rfactor.pure_vector: expected a vector width >= 2"));
  const std::string funcs = R"({"funcs": [], "packs": )";
  EXPECT_THAT(error_of(funcs + R"({"input": "K"}})"), HasSubstr("sched.json: packs: expected an array of input packs"));
  EXPECT_THAT(error_of(funcs + R"([{"input": "K", "compute": {"kind": "root"}}]})"),
              HasSubstr("packs[0].storage: expected the input's dimensions, innermost first"));
  EXPECT_THAT(error_of(funcs + R"([{"input": "K", "storage": ["y", "x"]}]})"),
              HasSubstr("packs[0]: missing required field \"compute\""));
  EXPECT_THAT(error_of(funcs + R"([{"input": "K", "storage": ["y", "x"], "compute": {"kind": "inline"}}]})"),
              HasSubstr("packs[0].compute.kind: expected root or at: a pack is stored"));
  EXPECT_THAT(error_of(funcs + R"([{"input": "K", "storage": ["y", "x"], "compute": {"kind": "root"}, "vector_width": 0}]})"),
              HasSubstr("packs[0].vector_width: expected a vector width >= 2"));
  EXPECT_THAT(error_of(funcs + R"([{"input": "K", "storage": ["y", "x"], "compute": {"kind": "root"}, "order": []}]})"),
              HasSubstr("packs[0].order: unknown field"));
}

}  // namespace
}  // namespace ktune::scheduler
