// Shared by the tests that check apply()'s printed Halide source (apply_source_test.cc,
// gpu_apply_source_test.cc): the printed schedules of many cases are compiled together
// with the system compiler against Halide into one shared library, and each is applied to
// a fresh pipeline of its subgraph, to be compared with what apply() itself did.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/apply.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/canonical_names.h"
#include "subgraphs/subgraph.h"

namespace ktune::scheduler::testing {

// Loop-nest text without the names Halide makes unique, which differ between pipelines: the
// `$N` uniquifiers, the counters of the loops `vectorize(x, n)` splits off (`x.v12`), and an
// rfactor intermediate's name (the loop nest shows `f` for one pipeline's `f$3_intm` and
// `f_3_intm` for another's).
inline std::string without_uniquifiers(const std::string& text) {
  std::string out = std::regex_replace(text, std::regex("\\$[0-9]+"), "");
  out = std::regex_replace(out, std::regex("\\.v[0-9]+"), ".v");
  return std::regex_replace(out, std::regex("_[0-9]+_intm\\b"), "");
}

// An rfactor intermediate's name without the number Halide put between its Func's name and
// "_intm" ("y_max_42_intm" -> "y_max_intm"), which depends on the Funcs the process made
// before; other names as they are.
inline std::string without_intermediate_number(const std::string& name) {
  return std::regex_replace(name, std::regex("_[0-9]+_intm$"), "_intm");
}

// Every Func of `built` by the stable name schedules use and, with `inputs`, the Func
// through which it reads each input, by the input's name (what a printed pack calls
// `K.in()` on).
inline std::map<std::string, Halide::Func> funcs_by_name(const subgraphs::BuiltPipeline& built,
                                                         const Analysis& analysis, bool inputs = false) {
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(built);
  const std::vector<subgraphs::FuncNames> names = subgraphs::canonical_names(funcs);
  std::map<std::string, Halide::Func> by_name;
  for (size_t k = 0; k < funcs.size(); ++k) by_name.emplace(without_intermediate_number(names[k].name), funcs[k]);
  for (const InputAnalysis& in : analysis.inputs) {
    if (!inputs) break;
    const Halide::Func wrapper = subgraphs::input_wrapper(built, in.name);
    if (wrapper.defined()) by_name.emplace(in.name, wrapper);
  }
  return by_name;
}

// One schedule applied by apply(), whose printed source is to be checked.
struct PrintedCase {
  const subgraphs::Subgraph* subgraph;  // the algorithm
  const Analysis* analysis;             // its analysis (names the Funcs)
  const ApplyResult* applied;           // apply()'s result, with the printed source
};

// Compiles the printed source of every case into lib<name>.so and applies case i's
// schedule to a fresh pipeline of its subgraph; returns those pipelines, in case order.
// Adds a fatal failure (and returns what it has) when compiling or loading fails.
inline std::vector<ApplyResult> apply_printed_sources(const std::vector<PrintedCase>& cases,
                                                      const std::string& name) {
  std::ostringstream code;
  code << "#include <Halide.h>\n#include <map>\n#include <string>\nusing namespace Halide;\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    code << "extern \"C\" void ktune_apply_" << i << "(std::map<std::string, Func>* funcs) {\n";
    for (const FuncAnalysis& fa : cases[i].analysis->funcs) {
      code << "  Func " << fa.name << " = funcs->at(\"" << fa.name << "\");\n";
    }
    for (const InputAnalysis& in : cases[i].analysis->inputs) {
      if (cases[i].applied->source.find(" = " + in.name + ".in();") == std::string::npos) continue;
      code << "  Func " << in.name << " = funcs->at(\"" << in.name << "\");\n";
    }
    code << cases[i].applied->source << "}\n";
  }
  std::string include_flags;
  std::stringstream dirs(KTUNE_HALIDE_INCLUDE_DIR);
  for (std::string d; std::getline(dirs, d, ':');) {
    if (!d.empty()) include_flags += " -I" + d;
  }
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "/" + name + ".cc";
  const std::string lib = dir + "/lib" + name + ".so";
  std::ofstream(src) << code.str();
  const std::string cmd = std::string(KTUNE_CXX_COMPILER) + " -std=c++17 -O0 -w -shared -fPIC" + include_flags +
                          " " + src + " -o " + lib + " " + KTUNE_HALIDE_LIBRARY + " 2>&1";
  std::vector<ApplyResult> printed;
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "the printed schedules do not compile: " << cmd;
    return printed;
  }
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    ADD_FAILURE() << dlerror();
    return printed;
  }
  using ApplyFn = void (*)(std::map<std::string, Halide::Func>*);
  for (size_t i = 0; i < cases.size(); ++i) {
    auto fn = reinterpret_cast<ApplyFn>(dlsym(handle, ("ktune_apply_" + std::to_string(i)).c_str()));
    if (fn == nullptr) {
      ADD_FAILURE() << "ktune_apply_" << i << " is missing from " << lib;
      return printed;
    }
    ApplyResult p;
    p.ok = true;
    p.source = cases[i].applied->source;
    p.built = std::make_shared<subgraphs::BuiltPipeline>(cases[i].subgraph->build());
    std::map<std::string, Halide::Func> by_name = funcs_by_name(*p.built, *cases[i].analysis, true);
    fn(&by_name);
    printed.push_back(std::move(p));
  }
  return printed;
}

}  // namespace ktune::scheduler::testing
