// Shared by the cost-model tests: small subgraphs from spec text, their analysis on a fixed
// CPU target, schedules from JSON text, and a temporary directory for database files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::cost_model::testing {

// A fixed AVX2-class target: 8 lanes, 2 cores, L1 32 KiB, L2 1 MiB, LLC 32 MiB.
inline scheduler::TargetInfo test_target() {
  scheduler::TargetInfo t;
  t.vector_lanes = 8;
  t.cores = 2;
  t.l1_bytes = 32 * 1024;
  t.l2_bytes = 1024 * 1024;
  t.llc_bytes = 32 * 1024 * 1024;
  return t;
}

inline std::unique_ptr<subgraphs::SpecSubgraph> spec_subgraph(const std::string& text) {
  return std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(text, "test.json"));
}

// C = A x B with A [256, 256] and B [256, 256] (numpy order): Funcs C_acc (update over k) and C.
inline const char* kMatmulSpec = R"({"name": "mm256",
  "inputs": [{"name": "A", "shape": [256, 256]}, {"name": "B", "shape": [256, 256]}],
  "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})";

// Separable 3x3 box blur: a 64-wide, 32-high output from a 66 x 34 input (blur_x, blur_y).
inline const char* kBlurSpec = R"({"name": "blur64",
  "inputs": [{"name": "input", "shape": [34, 66]}],
  "ops": [{"op": "stencil", "inputs": ["input"], "output": "blur_x", "axes": [1], "weights": [1, 1, 1], "divisor": 3},
          {"op": "stencil", "inputs": ["blur_x"], "output": "blur_y", "axes": [0], "weights": [1, 1, 1], "divisor": 3}],
  "outputs": ["blur_y"]})";

// Column sums of a 64 x 64 matrix: sums_acc (update over the rows r) and sums.
inline const char* kColsumSpec = R"({"name": "colsum64", "inputs": [{"name": "m", "shape": [64, 64]}],
  "ops": [{"op": "reduce_sum", "inputs": ["m"], "output": "sums", "axes": [0]}], "outputs": ["sums"]})";

inline scheduler::Analysis analyze_spec(const char* spec) {
  return scheduler::analyze(*spec_subgraph(spec), test_target());
}

inline scheduler::Schedule schedule(const std::string& json) {
  return scheduler::Schedule::from_json(nlohmann::json::parse(json), "test schedule");
}

// A fresh directory under the system temporary folder, removed when the test ends.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ktune_cost_model_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;  // absolute path of the directory
};

}  // namespace ktune::cost_model::testing
