// The Halide source that apply() prints is real C++: 20 sampled schedules are compiled with
// the system compiler against Halide, applied to fresh pipelines of the same algorithm,
// and must give the same loop nest and the same output as apply() itself.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "scheduler/internal/func_names.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

const char* kSpecs[] = {
    R"({"name": "mlp", "inputs": [{"name": "x", "shape": [24, 40]}, {"name": "w", "shape": [40, 36]}, {"name": "b", "shape": [36]}],
        "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"}, {"op": "bias_add", "inputs": ["h", "b"], "output": "hb"},
                {"op": "gelu", "inputs": ["hb"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "sm", "inputs": [{"name": "x", "shape": [20, 48]}],
        "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "cv", "inputs": [{"name": "x", "shape": [1, 4, 18, 18]}, {"name": "w", "shape": [8, 4, 3, 3]}],
        "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": 1}, {"op": "relu", "inputs": ["c"], "output": "y"}],
        "outputs": ["y"]})",
    R"({"name": "bl", "inputs": [{"name": "i", "shape": [34, 66]}],
        "ops": [{"op": "stencil", "inputs": ["i"], "output": "bx", "axes": [1], "weights": [1, 2, 1], "divisor": 4},
                {"op": "stencil", "inputs": ["bx"], "output": "y", "axes": [0], "weights": [1, 2, 1], "divisor": 4}],
        "outputs": ["y"]})",
};
constexpr int kPerSpec = 5;

std::string without_uniquifiers(const std::string& text) { return std::regex_replace(text, std::regex("\\$[0-9]+"), ""); }

std::string include_flags() {
  std::string flags, dirs = KTUNE_HALIDE_INCLUDE_DIR;
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const std::string d = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!d.empty()) flags += " -I" + d;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return flags;
}

using ApplyFn = void (*)(std::map<std::string, Halide::Func>*);

TEST(ApplySource, PrintedSourceCompilesAndMatchesApply) {
  struct Case {
    std::unique_ptr<subgraphs::SpecSubgraph> sg;
    std::unique_ptr<Space> space;
    Schedule schedule;
    ApplyResult applied;
  };
  std::vector<Case> cases;
  std::ostringstream code;
  code << "#include <Halide.h>\n#include <map>\n#include <string>\nusing namespace Halide;\n";
  Rng rng(77);
  for (const char* spec : kSpecs) {
    for (int i = 0; i < kPerSpec; ++i) {
      Case c;
      c.sg = testing::spec_subgraph(spec);
      c.space = std::make_unique<Space>(analyze(*c.sg, testing::test_target()));
      c.schedule = i == 0 ? c.space->heuristic() : *c.space->sample(rng);
      c.applied = apply(c.schedule, *c.sg, c.space->analysis());
      ASSERT_TRUE(c.applied.ok) << c.applied.error;
      code << "extern \"C\" void ktune_apply_" << cases.size() << "(std::map<std::string, Func>* funcs) {\n";
      for (const FuncAnalysis& fa : c.space->analysis().funcs) {
        code << "  Func " << fa.name << " = funcs->at(\"" << fa.name << "\");\n";
      }
      code << c.applied.source << "}\n";
      cases.push_back(std::move(c));
    }
  }
  ASSERT_GE(cases.size(), 20u);
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "/ktune_printed_schedules.cc";
  const std::string lib = dir + "/libktune_printed_schedules.so";
  std::ofstream(src) << code.str();
  const std::string cmd = std::string(KTUNE_CXX_COMPILER) + " -std=c++17 -O0 -w -shared -fPIC" + include_flags() + " " +
                          src + " -o " + lib + " " + KTUNE_HALIDE_LIBRARY + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the printed schedules do not compile: " << cmd;
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();

  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    auto fn = reinterpret_cast<ApplyFn>(dlsym(handle, ("ktune_apply_" + std::to_string(i)).c_str()));
    ASSERT_NE(fn, nullptr);
    ApplyResult printed;
    printed.ok = true;
    printed.built = std::make_shared<subgraphs::BuiltPipeline>(c.sg->build());
    const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(*printed.built);
    const std::vector<std::string> names = stable_func_names(funcs);
    std::map<std::string, Halide::Func> by_name;
    for (size_t k = 0; k < funcs.size(); ++k) by_name.emplace(names[k], funcs[k]);
    fn(&by_name);
    EXPECT_EQ(without_uniquifiers(loop_nest_text(printed)), without_uniquifiers(loop_nest_text(c.applied)))
        << c.applied.source;
    const auto inputs = c.sg->make_inputs(5);
    const auto target = Halide::get_jit_target_from_environment();
    const auto a = subgraphs::run_pipeline(*c.applied.built, inputs, c.sg->outputs(), target);
    const auto b = subgraphs::run_pipeline(*printed.built, inputs, c.sg->outputs(), target);
    EXPECT_EQ(a[0].data, b[0].data) << "same schedule, same code: outputs must be identical";
    EXPECT_TRUE(subgraphs::compare_outputs(a, c.sg->reference(inputs)).passed());
  }
}

}  // namespace
}  // namespace ktune::scheduler
