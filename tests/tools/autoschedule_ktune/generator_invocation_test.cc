#include "tools/autoschedule_ktune/generator_invocation.h"

#include <gtest/gtest.h>

namespace ktune::autoschedule {
namespace {

TEST(GeneratorInvocation, ReadsTheGeneratorNameAndItsParameters) {
  const GeneratorInvocation inv = parse_generator_args(
      {"-n", "demo_tuned", "-d", "0", "-g", "blur", "-f", "blur_fn", "-e", "c_header,object,schedule", "-p",
       "/x/libautoschedule_ktune.so", "-s", "Ktune", "-o", ".", "target=host-no_runtime", "auto_schedule=true",
       "machine_params=2,1,1", "width=200", "scale=1.5"});
  EXPECT_EQ(inv.generator, "blur");
  const std::map<std::string, std::string> expected = {{"scale", "1.5"}, {"width", "200"}};
  EXPECT_EQ(inv.params, expected);
}

TEST(GeneratorInvocation, FlagValuesThatLookLikeParametersAreNotParameters) {
  const GeneratorInvocation inv = parse_generator_args({"-o", "out=dir", "-g", "g", "k=v"});
  EXPECT_EQ(inv.generator, "g");
  EXPECT_EQ(inv.params.size(), 1u);
  EXPECT_EQ(inv.params.count("out"), 0u);
}

TEST(GeneratorInvocation, WithoutGeneratorFlagTheNameIsEmpty) {
  EXPECT_EQ(parse_generator_args({"target=host"}).generator, "");
  EXPECT_TRUE(parse_generator_args({"target=host"}).params.empty());
}

}  // namespace
}  // namespace ktune::autoschedule
