#include "tools/autoschedule_ktune/plugin_config.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ktune::autoschedule {
namespace {

class PluginConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : {"KTUNE_DB", "KTUNE_DEVICE", "KTUNE_FALLBACK_AUTOSCHEDULER", "KTUNE_INPUTS"}) unsetenv(name);
  }
};

TEST_F(PluginConfigTest, UnsetVariablesGiveNoDatabaseTheHostAndAdams2019) {
  const PluginConfig c = config_from_environment();
  EXPECT_EQ(c.db, "");
  EXPECT_EQ(c.device, "");
  EXPECT_EQ(c.fallback, "Adams2019");
  EXPECT_TRUE(c.inputs.empty());
}

TEST_F(PluginConfigTest, ScalarInputsAreNameValuePairs) {
  setenv("KTUNE_INPUTS", "sigma=1.5,levels=3", 1);
  PluginConfig c = config_from_environment();
  EXPECT_EQ(c.inputs, (std::map<std::string, std::string>{{"levels", "3"}, {"sigma", "1.5"}}));
  EXPECT_EQ(c.inputs_error, "");
  setenv("KTUNE_INPUTS", "sigma", 1);
  c = config_from_environment();
  EXPECT_NE(c.inputs_error.find("expected name=value"), std::string::npos) << c.inputs_error;
}

TEST_F(PluginConfigTest, InputRangesAreNameLoColonHi) {
  setenv("KTUNE_INPUTS", "sigma=1.5,alpha=0.1:1,input=0:4095", 1);
  PluginConfig c = config_from_environment();
  EXPECT_EQ(c.inputs_error, "");
  EXPECT_EQ(c.inputs, (std::map<std::string, std::string>{{"sigma", "1.5"}}));
  EXPECT_EQ(c.input_ranges, (subgraphs::InputRanges{{"alpha", {0.1, 1}}, {"input", {0, 4095}}}));
  EXPECT_EQ(tune_input_flags(c), " --input sigma=1.5 --input-range alpha=0.1,1 --input-range input=0,4095");
  setenv("KTUNE_INPUTS", "alpha=0.1:x", 1);
  c = config_from_environment();
  EXPECT_NE(c.inputs_error.find("KTUNE_INPUTS: alpha: HI: expected alpha=LO:HI"), std::string::npos) << c.inputs_error;
}

TEST_F(PluginConfigTest, ReadsEveryVariable) {
  setenv("KTUNE_DB", "/data/tuning.db", 1);
  setenv("KTUNE_DEVICE", "f2eae8886041e240e813fb30d3793d56", 1);
  setenv("KTUNE_FALLBACK_AUTOSCHEDULER", "Mullapudi2016", 1);
  const PluginConfig c = config_from_environment();
  EXPECT_EQ(c.db, "/data/tuning.db");
  EXPECT_EQ(c.device, "f2eae8886041e240e813fb30d3793d56");
  EXPECT_EQ(c.fallback, "Mullapudi2016");
}

TEST_F(PluginConfigTest, AnEmptyFallbackMeansTheDefault) {
  setenv("KTUNE_FALLBACK_AUTOSCHEDULER", "", 1);
  EXPECT_EQ(config_from_environment().fallback, "Adams2019");
}

}  // namespace
}  // namespace ktune::autoschedule
