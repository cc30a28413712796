// Tests of bench/library_runner.cc and the two library baselines: a verified timing
// for OpenBLAS and oneDNN on tiny subgraphs, a wrong output flagged as wrong_result, and a
// crashing library reported as a crash instead of ending the bench.
#include "bench/library_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "bench/bench_methods.h"
#include "measure/workload_data.h"
#include "subgraphs/compare.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::bench {
namespace {

measure::TimingProtocol quick() {
  measure::TimingProtocol p;
  p.min_repeats = 3;
  p.min_total_ms = 1;
  return p;
}

// A library row's call for a matched plan, taken from the table of bench methods as the
// bench takes it.
LibraryMethod library_method(const std::string& name, const PlanMatch& match) {
  const BenchMethod* row = find_method(name);
  if (!row || !row->library) {
    ADD_FAILURE() << name << " has no library row in the table of bench methods";
    return LibraryMethod{name, "", "no library row", nullptr};
  }
  return row->library(match);
}

// Inputs and reference of a spec, as the bench prepares them.
struct Prepared {
  std::unique_ptr<subgraphs::SpecSubgraph> subgraph;
  std::shared_ptr<measure::WorkloadData> data;
  BenchInputs inputs;
};
Prepared prepare(const std::string& text) {
  Prepared p;
  p.subgraph = std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(text, "<test>"));
  p.data = measure::prepare_workload(*p.subgraph, 1, 60000);
  for (const auto& b : p.data->inputs) p.inputs.inputs.push_back(b.data());
  p.inputs.output = p.subgraph->outputs().front();
  p.inputs.reference = &p.data->reference.front();
  return p;
}

const char* kMlp = R"({"name": "mlp", "inputs": [{"name": "x", "shape": [16, 24]}, {"name": "w", "shape": [24, 32]},
  {"name": "b", "shape": [32]}], "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "xw"},
  {"op": "bias_add", "inputs": ["xw", "b"], "output": "p"}, {"op": "gelu", "inputs": ["p"], "output": "y"}],
  "outputs": ["y"]})";

TEST(LibraryRunner, OpenblasAndOnednnMatchTheReference) {
  Prepared p = prepare(kMlp);
  const PlanMatch match = match_library_plan(p.subgraph->spec(), p.subgraph->outputs().front().dtype);
  for (const LibraryMethod& method : {library_method("openblas", match), library_method("onednn", match)}) {
    ASSERT_TRUE(method.unsupported.empty()) << method.method << ": " << method.unsupported;
    const measure::MeasureResult r = run_library_method(method, p.inputs, 1, quick(), 60000);
    EXPECT_TRUE(r.ok()) << method.method << ": " << measure::describe(r);
    EXPECT_GE(r.repeats, 3) << method.method;
    EXPECT_GT(r.median_ns, 0) << method.method;
    EXPECT_LE(r.max_error, subgraphs::kTolerance) << method.method;
  }
}

TEST(LibraryRunner, OnednnRunsConvSoftmaxLayernormAndChains) {
  for (const char* text : {
           R"({"name": "c", "inputs": [{"name": "x", "shape": [1, 4, 9, 9]}, {"name": "w", "shape": [4, 1, 3, 3]}],
              "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": [1, 1], "groups": 4},
              {"op": "relu", "inputs": ["c"], "output": "y"}], "outputs": ["y"]})",
           R"({"name": "s", "inputs": [{"name": "x", "shape": [8, 32]}],
              "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
           R"({"name": "l", "inputs": [{"name": "x", "shape": [8, 32]}, {"name": "g", "shape": [32]}, {"name": "b", "shape": [32]}],
              "ops": [{"op": "layernorm", "inputs": ["x", "g", "b"], "output": "y"}], "outputs": ["y"]})",
           R"({"name": "e", "inputs": [{"name": "a", "shape": [100]}, {"name": "b", "shape": [100]}],
              "ops": [{"op": "mul", "inputs": ["a", "b"], "output": "ab"}, {"op": "relu", "inputs": ["ab"], "output": "y"}],
              "outputs": ["y"]})",
       }) {
    Prepared p = prepare(text);
    const LibraryMethod method = library_method("onednn", match_library_plan(p.subgraph->spec(), p.subgraph->outputs().front().dtype));
    ASSERT_TRUE(method.unsupported.empty()) << p.subgraph->name() << ": " << method.unsupported;
    const measure::MeasureResult r = run_library_method(method, p.inputs, 1, quick(), 60000);
    EXPECT_TRUE(r.ok()) << p.subgraph->name() << ": " << measure::describe(r);
  }
}

// Low precision as oneDNN runs it (bf16 in f32, u8 × s8 in s32 with output scales and a
// zero point), checked against ktune's references; OpenBLAS says it takes f32 only.
TEST(LibraryRunner, OnednnRunsBf16AndQuantizedSubgraphs) {
  for (const char* text : {
           R"({"name": "bf", "inputs": [{"name": "a", "shape": [2, 16, 32], "dtype": "bf16"}, {"name": "b", "shape": [2, 16, 32], "dtype": "bf16"}],
              "ops": [{"op": "batch_matmul", "inputs": ["a", "b"], "output": "y", "transpose_b": true}], "outputs": ["y"]})",
           R"({"name": "qm", "inputs": [{"name": "a", "shape": [16, 64], "dtype": "u8"}, {"name": "b", "shape": [64, 32], "dtype": "i8"}],
              "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "acc"},
                      {"op": "requantize", "inputs": ["acc"], "output": "y", "scale": 0.0004, "zero_point": 128, "out_dtype": "u8"}],
              "outputs": ["y"]})",
           R"({"name": "qc", "inputs": [{"name": "x", "shape": [1, 6, 5, 16], "dtype": "u8"}, {"name": "w", "shape": [3, 3, 16, 8], "dtype": "i8"},
              {"name": "b", "shape": [8], "dtype": "i32", "range": [-2000, 2000]}, {"name": "s", "shape": [8], "range": [0.001, 0.003]}],
              "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "acc", "layout": "NHWC", "padding": 1},
                      {"op": "bias_add", "inputs": ["acc", "b"], "output": "biased"}, {"op": "relu", "inputs": ["biased"], "output": "r"},
                      {"op": "requantize", "inputs": ["r", "s"], "output": "y", "out_dtype": "u8"}], "outputs": ["y"]})",
       }) {
    Prepared p = prepare(text);
    const PlanMatch match = match_library_plan(p.subgraph->spec(), p.subgraph->outputs().front().dtype);
    const LibraryMethod onednn = library_method("onednn", match);
    ASSERT_TRUE(onednn.unsupported.empty()) << p.subgraph->name() << ": " << onednn.unsupported;
    const measure::MeasureResult r = run_library_method(onednn, p.inputs, 1, quick(), 60000);
    EXPECT_TRUE(r.ok()) << p.subgraph->name() << ": " << measure::describe(r);
    EXPECT_NE(library_method("openblas", match).unsupported.find("f32 only"), std::string::npos);
  }
}

TEST(LibraryRunner, PerturbedOutputIsAWrongResult) {
  Prepared p = prepare(kMlp);
  const subgraphs::Tensor& ref = *p.inputs.reference;
  subgraphs::Tensor output(ref.shape, ref.dtype);
  auto right = [&] { output = ref; };
  EXPECT_TRUE(verify_and_time(right, output, p.inputs.output, ref, quick()).ok());
  auto perturbed = [&] {
    output = ref;
    output.set(output.size() / 2, output.at(output.size() / 2) + 0.5);
  };
  const measure::MeasureResult r = verify_and_time(perturbed, output, p.inputs.output, ref, quick());
  EXPECT_EQ(r.status, measure::MeasureStatus::kWrongResult);
  EXPECT_GT(r.max_error, subgraphs::kTolerance);
  EXPECT_EQ(r.repeats, 0);  // never timed
}

class Crashing : public LibraryKernel {
 public:
  void run(const std::vector<const void*>&, void*) override { raise(SIGSEGV); }
};

TEST(LibraryRunner, CrashingLibraryIsACrashRow) {
  Prepared p = prepare(kMlp);
  LibraryMethod method;
  method.method = "crashing";
  method.make = [](int) -> std::unique_ptr<LibraryKernel> { return std::make_unique<Crashing>(); };
  const measure::MeasureResult r = run_library_method(method, p.inputs, 1, quick(), 60000);
  EXPECT_EQ(r.status, measure::MeasureStatus::kCrash);
  EXPECT_EQ(r.signal, SIGSEGV);
}

}  // namespace
}  // namespace ktune::bench
