// Reading users' JSON files: every refusal names the file and where, nothing crashes on
// deep or hostile documents.
#include "common/user_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/error.h"

namespace ktune {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string error_of(const std::string& text) {
  try {
    parse_user_json(text, "f.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(UserJson, ParsesOrdinaryDocuments) {
  const nlohmann::json j = parse_user_json(R"({"a": [1, {"b": 2}], "c": "d"})", "f.json");
  EXPECT_EQ(j["a"][1]["b"], 2);
  EXPECT_EQ(j["c"], "d");
}

TEST(UserJson, DeepNestingIsRefusedWithoutRecursion) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_THAT(error_of(deep), AllOf(HasSubstr("f.json"), HasSubstr("nested more than 64 levels")));
  const std::string ok = std::string(60, '[') + std::string(60, ']');
  EXPECT_EQ(error_of(ok), "");
}

TEST(UserJson, DuplicateKeysAreRefusedWithTheirPath) {
  EXPECT_THAT(error_of(R"({"ops": [{"op": "relu"}, {"op": "add", "op": "mul"}]})"),
              HasSubstr("f.json: ops[1].op: the key \"op\" appears twice"));
  EXPECT_THAT(error_of(R"({"name": "a", "name": "b"})"), HasSubstr("f.json: name: the key \"name\" appears twice"));
  // The same key in two different objects is fine.
  EXPECT_EQ(error_of(R"([{"a": 1}, {"a": 2}])"), "");
}

TEST(UserJson, NumberOverflowAndSyntaxErrorsAreUserErrors) {
  EXPECT_THAT(error_of(R"({"factor": 1e999})"), AllOf(HasSubstr("f.json"), HasSubstr("number overflow")));
  EXPECT_THAT(error_of("{\n  \"a\": ,\n}"), AllOf(HasSubstr("f.json"), HasSubstr("line 2"), HasSubstr("syntax error")));
  EXPECT_THAT(error_of(""), HasSubstr("f.json: invalid JSON"));
}

TEST(UserJson, DirectoriesAndMissingFilesSaySo) {
  try {
    read_user_json(::testing::TempDir(), "spec file");
    ADD_FAILURE() << "a directory was read";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a directory; expected a spec file"));
  }
  try {
    read_user_json("/nonexistent/s.json", "schedule file");
    ADD_FAILURE() << "a missing file was read";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("/nonexistent/s.json"), HasSubstr("cannot open schedule file")));
  }
}

}  // namespace
}  // namespace ktune
