// Every malformed-spec path names the file, the JSON path of the field (or the line and
// column), what was expected and what was found.
#include "subgraphs/spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::subgraphs {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Parses and validates `text` as file "t.json"; returns the UserError message or "".
std::string error_of(const std::string& text) {
  try {
    SpecSubgraph sg(parse_spec_text(text, "t.json"));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// A spec with the given inputs and ops, whose output is the last op's output.
std::string spec_with(const std::string& inputs, const std::string& ops, const std::string& outputs) {
  return R"({"name": "t", "inputs": [)" + inputs + R"(], "ops": [)" + ops + R"(], "outputs": [)" + outputs + "]}";
}

const char* kValid = R"({
  "name": "mm",
  "inputs": [{"name": "a", "shape": [3, 4]}, {"name": "b", "shape": [4, 5]}],
  "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "c"},
          {"op": "relu", "inputs": ["c"], "output": "d"}],
  "outputs": ["d"]
})";

TEST(Spec, ParsesAValidSpec) {
  const Spec spec = parse_spec_text(kValid, "t.json");
  EXPECT_EQ(spec.name, "mm");
  ASSERT_EQ(spec.inputs.size(), 2u);
  EXPECT_EQ(spec.inputs[1].info.shape, (Shape{4, 5}));
  ASSERT_EQ(spec.ops.size(), 2u);
  EXPECT_EQ(spec.ops[0].op, "matmul");
  EXPECT_EQ(spec.ops[1].path, "ops[1]");
  EXPECT_EQ(spec.outputs, std::vector<std::string>{"d"});
  EXPECT_EQ(error_of(kValid), "");
}

TEST(Spec, NameDefaultsToTheFileName) {
  const Spec spec = parse_spec_text(
      R"({"inputs": [{"name": "a", "shape": [2]}],
          "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})",
      "dir/my_relu.json");
  EXPECT_EQ(spec.name, "my_relu");
}

TEST(SpecErrors, JsonSyntaxErrorGivesLineAndColumn) {
  EXPECT_THAT(error_of("{\n  \"name\": \"x\",\n  \"inputs\": [,]\n}"),
              AllOf(HasSubstr("t.json"), HasSubstr("invalid JSON at line 3, column 14")));
}

TEST(SpecErrors, MissingFileIsNamed) {
  try {
    parse_spec_file("/nonexistent/ktune/spec.json");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("/nonexistent/ktune/spec.json: cannot open spec file"));
  }
}

TEST(SpecErrors, UnknownOpListsTheKnownOnes) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "frobnicate", "inputs": ["a"], "output": "b"})", R"("b")")),
              AllOf(HasSubstr("t.json: ops[0].op: unknown op \"frobnicate\""), HasSubstr("matmul"),
                    HasSubstr("stencil")));
}

TEST(SpecErrors, WrongNumberOfInputs) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "add", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("t.json: ops[0].inputs: add: expected 2 inputs, found 1"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["a", "a"], "output": "b"})", R"("b")")),
              HasSubstr("ops[0].inputs: relu: expected 1 input, found 2"));
}

TEST(SpecErrors, IncompatibleShapesNameBothShapes) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2, 3]}, {"name": "b", "shape": [4, 3]})",
                                 R"({"op": "add", "inputs": ["a", "b"], "output": "c"})", R"("c")")),
              AllOf(HasSubstr("ops[0].inputs"), HasSubstr("[2, 3]"), HasSubstr("[4, 3]")));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2, 3]}, {"name": "b", "shape": [4, 5]})",
                                 R"({"op": "matmul", "inputs": ["a", "b"], "output": "c"})", R"("c")")),
              AllOf(HasSubstr("inner dimensions differ"), HasSubstr("[2, 3]"), HasSubstr("[4, 5]")));
}

TEST(SpecErrors, UnknownDtype) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2], "dtype": "int7"})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("t.json: inputs[0].dtype: unknown dtype \"int7\" (expected one of u8, i8, u16, i16, i32, f16, bf16, f32)"));
}

TEST(SpecErrors, NonPositiveExtents) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2, 0]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("inputs[0].shape[1]: expected a positive extent, found 0"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [-3]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("inputs[0].shape[0]: expected a positive extent, found -3"));
}

TEST(SpecErrors, DuplicateNames) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]}, {"name": "a", "shape": [3]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("inputs[1].name: duplicate name \"a\""));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"}, {"op": "neg", "inputs": ["a"], "output": "b"})",
                                 R"("b")")),
              HasSubstr("ops[1].output: duplicate name \"b\""));
}

TEST(SpecErrors, OutputUsedBeforeItIsDefined) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["c"], "output": "b"}, {"op": "neg", "inputs": ["a"], "output": "c"})",
                                 R"("b")")),
              HasSubstr("ops[0].inputs[0]: \"c\" is used before it is defined"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["zz"], "output": "b"})", R"("b")")),
              HasSubstr("ops[0].inputs[0]: \"zz\" is not an input or the output of an earlier op"));
}

TEST(SpecErrors, MissingOutput) {
  EXPECT_THAT(error_of(R"({"name": "t", "inputs": [{"name": "a", "shape": [2]}],
                           "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}]})"),
              HasSubstr("t.json: (root): missing required field \"outputs\""));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("nope")")),
              HasSubstr("outputs[0]: \"nope\" is not defined by any op"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("a")")),
              HasSubstr("outputs[0]: \"a\" is an input; outputs must be produced by an op"));
}

TEST(SpecErrors, UnknownAttributeAndField) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [1, 2, 5, 5]}, {"name": "w", "shape": [3, 2, 3, 3]})",
                                 R"({"op": "conv2d", "inputs": ["a", "w"], "output": "b", "strid": 2})", R"("b")")),
              AllOf(HasSubstr("ops[0].strid: conv2d: unknown attribute \"strid\""), HasSubstr("stride")));
  EXPECT_THAT(error_of(R"({"name": "t", "inputs": [{"name": "a", "shape": [2], "shap": 1}], "ops": [], "outputs": []})"),
              HasSubstr("inputs[0].shap: unknown field \"shap\""));
}

TEST(SpecErrors, BadAttributeValuesNameTheField) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2, 3]})",
                                 R"({"op": "softmax", "inputs": ["a"], "output": "b", "axis": 2})", R"("b")")),
              HasSubstr("ops[0].axis: softmax: axis 2 is out of range for a rank 2 input"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2, 3]})",
                                 R"({"op": "scale", "inputs": ["a"], "output": "b", "factor": "big"})", R"("b")")),
              HasSubstr("ops[0].factor: scale: expected a number"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [1, 4, 5, 5]}, {"name": "w", "shape": [6, 2, 3, 3]})",
                                 R"({"op": "conv2d", "inputs": ["a", "w"], "output": "b", "groups": 3})", R"("b")")),
              HasSubstr("ops[0].groups: conv2d: groups = 3 must divide the input channels (4)"));
}

TEST(SpecErrors, NamesMustBeIdentifiers) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "my input", "shape": [2]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("inputs[0].name: expected a name made of letters"));
}


TEST(SpecLimits, RankAboveEightNamesTheFieldAndTheLimit) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("t.json: inputs[0].shape: rank 20 is more than ktune supports (8 dimensions)"));
}

TEST(SpecLimits, HugeExtentsAndElementCountsAreRefusedWithoutOverflow) {
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [18446744073709551615]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("inputs[0].shape[0]: extent 18446744073709551615 is too large"));
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [65536, 65536, 65536, 65536]})",
                                 R"({"op": "relu", "inputs": ["a"], "output": "b"})", R"("b")")),
              HasSubstr("more than 2^31 - 1 elements"));
}

TEST(SpecLimits, DerivedExtentsAreCheckedBeforeAnythingIsBuilt) {
  // Valid paddings whose output would have 4,000,000,014 columns.
  EXPECT_THAT(error_of(spec_with(R"({"name": "x", "shape": [1, 3, 16, 16]}, {"name": "w", "shape": [8, 3, 3, 3]})",
                                 R"({"op": "conv2d", "inputs": ["x", "w"], "output": "y", "padding": [2000000000, 2000000000]})",
                                 R"("y")")),
              AllOf(HasSubstr("t.json: ops[0]: the output \"y\""), HasSubstr("is above 2^31 - 1")));
  EXPECT_THAT(error_of(spec_with(R"({"name": "x", "shape": [1, 3, 16, 16]}, {"name": "w", "shape": [8, 3, 3, 3]})",
                                 R"({"op": "conv2d", "inputs": ["x", "w"], "output": "y", "padding": [9000000000, 1]})",
                                 R"("y")")),
              AllOf(HasSubstr("ops[0].padding[0]"), HasSubstr("expected an integer between -2^31 and 2^31")));
}

TEST(SpecLimits, LongNamesAndTooManyOpsAreRefused) {
  EXPECT_THAT(error_of(R"({"name": ")" + std::string(20000, 'n') + R"(", "inputs": [{"name": "a", "shape": [2]}],
                          "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})"),
              HasSubstr("t.json: name: a name of 20000 characters is longer than 64"));
  std::string ops;
  for (int i = 0; i <= static_cast<int>(kMaxSpecOps); ++i) {
    ops += std::string(i ? ", " : "") + R"({"op": "relu", "inputs": [")" + (i ? "t" + std::to_string(i - 1) : "a") +
           R"("], "output": "t)" + std::to_string(i) + "\"}";
  }
  EXPECT_THAT(error_of(spec_with(R"({"name": "a", "shape": [2]})", ops, R"("t0")")),
              HasSubstr("t.json: ops: 10001 ops are more than a spec may have (10000)"));
}

TEST(SpecLimits, DuplicateKeysAndDeepNestingAreRefused) {
  EXPECT_THAT(error_of(R"({"name": "t", "name": "u", "inputs": [], "ops": [], "outputs": []})"),
              HasSubstr("t.json: name: the key \"name\" appears twice"));
  EXPECT_THAT(error_of(std::string(5000, '[') + std::string(5000, ']')), HasSubstr("nested more than 64 levels"));
}

}  // namespace
}  // namespace ktune::subgraphs
