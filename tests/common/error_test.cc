#include "common/error.h"

#include <gtest/gtest.h>

#include "common/check.h"

namespace ktune {
namespace {

TEST(FormatUserError, NamesFileAndField) {
  EXPECT_EQ(format_user_error("spec.json", "ops[1].op", "unknown op 'foo'"),
            "spec.json: ops[1].op: unknown op 'foo'");
  EXPECT_EQ(format_user_error("", "", "plain"), "plain");
}

TEST(KtuneCheck, PassingCheckDoesNotEvaluateMessage) {
  int evaluated = 0;
  auto message = [&] { return ++evaluated; };
  KTUNE_CHECK(1 + 1 == 2) << message();
  EXPECT_EQ(evaluated, 0);
}

TEST(KtuneCheckDeathTest, FailingCheckAbortsWithLocationAndMessage) {
  EXPECT_DEATH({ KTUNE_CHECK(2 < 1) << "custom detail " << 42; },
               "error_test.cc:[0-9]+: check failed: 2 < 1 custom detail 42");
}

}  // namespace
}  // namespace ktune
