// The workload key is a hash of the algorithm's canonical form: names do not matter,
// shapes and definitions do. Keys are pinned so an accidental change of the canonical
// form (which would orphan every database row) is caught.
#include <gtest/gtest.h>

#include "subgraphs/spec_subgraph.h"

namespace ktune::subgraphs {
namespace {

std::string mlp(const std::string& x, const std::string& w, const std::string& out, int m, const char* act = "gelu") {
  return R"({"name": ")" + out + R"(_net", "inputs": [{"name": ")" + x + R"(", "shape": [)" + std::to_string(m) +
         R"(, 8]}, {"name": ")" + w + R"(", "shape": [8, 4]}], "ops": [{"op": "matmul", "inputs": [")" + x + R"(", ")" + w +
         R"("], "output": "h"}, {"op": ")" + act + R"(", "inputs": ["h"], "output": ")" + out + R"("}], "outputs": [")" + out + R"("]})";
}

WorkloadKey key_of(const std::string& text) { return SpecSubgraph(parse_spec_text(text, "k.json")).key(); }

TEST(WorkloadKey, SameMathUnderOtherNamesIsTheSameWorkload) {
  EXPECT_EQ(key_of(mlp("x", "w", "y", 16)).key, key_of(mlp("activations", "weights", "result", 16)).key);
  EXPECT_EQ(key_of(mlp("x", "w", "y", 16)).family_key, key_of(mlp("a", "b", "c", 16)).family_key);
}

TEST(WorkloadKey, ShapeOrDefinitionChangesTheKey) {
  const WorkloadKey base = key_of(mlp("x", "w", "y", 16));
  const WorkloadKey other_shape = key_of(mlp("x", "w", "y", 32));
  EXPECT_NE(base.key, other_shape.key);
  EXPECT_EQ(base.family_key, other_shape.family_key) << "same algorithm at another shape";
  const WorkloadKey other_op = key_of(mlp("x", "w", "y", 16, "relu"));
  EXPECT_NE(base.key, other_op.key);
  EXPECT_NE(base.family_key, other_op.family_key);
}

TEST(WorkloadKey, AttributeValuesChangeTheKey) {
  auto scaled = [](const char* factor) {
    return std::string(R"({"inputs": [{"name": "a", "shape": [4]}], "ops": [{"op": "scale", "inputs": ["a"], "output": "b", "factor": )") +
           factor + R"(}], "outputs": ["b"]})";
  };
  EXPECT_NE(key_of(scaled("0.5")).key, key_of(scaled("0.25")).key);
  EXPECT_EQ(key_of(scaled("0.5")).key, key_of(scaled("0.50")).key);
}

TEST(WorkloadKey, ShapeTupleIsReadable) {
  EXPECT_EQ(key_of(mlp("x", "w", "y", 16)).shapes, "x=[16, 8];w=[8, 4]->y=[16, 4]");
}

TEST(WorkloadKey, PinnedKeys) {
  EXPECT_EQ(key_of(mlp("x", "w", "y", 16)).key, "120695ce63aa8b1e787c25d4ff24d91b");
  EXPECT_EQ(key_of(mlp("x", "w", "y", 16)).family_key, "920681a86cd579f76bd9e15439e6a3fc");
}

}  // namespace
}  // namespace ktune::subgraphs
