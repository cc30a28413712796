// GPU schedules print real Halide source too: the printed source of CUDA schedules
// (block and thread loops, shared and register memory) compiles against Halide and,
// applied to a fresh pipeline, gives the same loop nest and the same memory types as
// apply() itself.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "scheduler/internal/func_names.h"
#include "tests/scheduler/gpu_test_support.h"

namespace ktune::scheduler {
namespace {

const char* kSpecs[] = {
    R"({"name": "mlp", "inputs": [{"name": "x", "shape": [24, 40]}, {"name": "w", "shape": [40, 36]}, {"name": "b", "shape": [36]}],
        "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"}, {"op": "bias_add", "inputs": ["h", "b"], "output": "hb"},
                {"op": "gelu", "inputs": ["hb"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "sm", "inputs": [{"name": "x", "shape": [20, 48]}],
        "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "bl", "inputs": [{"name": "i", "shape": [34, 66]}],
        "ops": [{"op": "stencil", "inputs": ["i"], "output": "bx", "axes": [1], "weights": [1, 2, 1], "divisor": 4},
                {"op": "stencil", "inputs": ["bx"], "output": "y", "axes": [0], "weights": [1, 2, 1], "divisor": 4}],
        "outputs": ["y"]})",
};
constexpr int kPerSpec = 4;

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

std::map<std::string, Halide::Func> funcs_by_name(const subgraphs::BuiltPipeline& built) {
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(built);
  const std::vector<std::string> names = stable_func_names(funcs);
  std::map<std::string, Halide::Func> by_name;
  for (size_t k = 0; k < funcs.size(); ++k) by_name.emplace(names[k], funcs[k]);
  return by_name;
}

using ApplyFn = void (*)(std::map<std::string, Halide::Func>*);

TEST(GpuApplySource, PrintedSourceMatchesApply) {
  struct Case {
    std::unique_ptr<subgraphs::SpecSubgraph> sg;
    std::unique_ptr<Space> space;
    Schedule schedule;
    ApplyResult applied;
  };
  std::vector<Case> cases;
  std::ostringstream code;
  code << "#include <Halide.h>\n#include <map>\n#include <string>\nusing namespace Halide;\n";
  Rng rng(91);
  bool shared = false, blocks = false;
  for (const char* spec : kSpecs) {
    for (int i = 0; i < kPerSpec; ++i) {
      Case c;
      c.sg = testing::spec_subgraph(spec);
      c.space = std::make_unique<Space>(analyze(*c.sg, cuda_target_info("a100")));
      c.schedule = i == 0 ? c.space->heuristic() : *c.space->sample(rng);
      c.applied = apply(c.schedule, *c.sg, c.space->analysis());
      ASSERT_TRUE(c.applied.ok) << c.applied.error;
      shared |= c.applied.source.find("store_in(MemoryType::GPUShared)") != std::string::npos;
      blocks |= c.applied.source.find(".gpu_blocks(") != std::string::npos;
      code << "extern \"C\" void ktune_apply_" << cases.size() << "(std::map<std::string, Func>* funcs) {\n";
      for (const FuncAnalysis& fa : c.space->analysis().funcs) {
        code << "  Func " << fa.name << " = funcs->at(\"" << fa.name << "\");\n";
      }
      code << c.applied.source << "}\n";
      cases.push_back(std::move(c));
    }
  }
  EXPECT_TRUE(shared) << "no sampled schedule stages a Func in shared memory";
  EXPECT_TRUE(blocks);
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "/ktune_printed_gpu_schedules.cc";
  const std::string lib = dir + "/libktune_printed_gpu_schedules.so";
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
    std::map<std::string, Halide::Func> by_name = funcs_by_name(*printed.built);
    fn(&by_name);
    EXPECT_EQ(without_uniquifiers(loop_nest_text(printed)), without_uniquifiers(loop_nest_text(c.applied)))
        << c.applied.source;
    const std::map<std::string, Halide::Func> applied_funcs = funcs_by_name(*c.applied.built);
    for (const auto& [name, f] : by_name) {
      EXPECT_EQ(static_cast<int>(f.function().schedule().memory_type()),
                static_cast<int>(applied_funcs.at(name).function().schedule().memory_type()))
          << name << "\n" << c.applied.source;
    }
  }
}

}  // namespace
}  // namespace ktune::scheduler
