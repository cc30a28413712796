#include "common/error.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "common/check.h"

namespace ktune {
namespace {

TEST(FormatUserError, NamesFileAndField) {
  EXPECT_EQ(format_user_error("spec.json", "ops[1].op", "unknown op 'foo'"),
            "spec.json: ops[1].op: unknown op 'foo'");
  EXPECT_EQ(format_user_error("", "", "plain"), "plain");
}

TEST(WriteError, AFullDiskIsTheMachinesFailureAMissingFolderTheUsers) {
  EXPECT_TRUE(is_machine_write_failure(ENOSPC));
  EXPECT_TRUE(is_machine_write_failure(EIO));
  EXPECT_FALSE(is_machine_write_failure(EACCES));
  EXPECT_FALSE(is_machine_write_failure(ENOENT));
  try {
    throw_write_error("out/report.html", "--out", "the report", ENOSPC);
    FAIL() << "no throw";
  } catch (const EnvironmentError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("out/report.html: --out: writing the report failed: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(throw_write_error("out/report.html", "--out", "the report", EACCES), UserError);
  EXPECT_THROW(throw_write_error("out/report.html", "", "the report", EROFS), UserError);
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
