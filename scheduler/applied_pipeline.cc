// Looking at a scheduled pipeline without running it: lowering it for a target (the errors
// Halide reports only then) and printing its loop nest. Declared in apply.h.
#include <iostream>
#include <sstream>

#include "scheduler/apply.h"
#include "subgraphs/built_pipeline.h"
#include "targets/host_target.h"

namespace ktune::scheduler {

std::optional<std::string> lower(const ApplyResult& applied, const std::string& halide_target) {
  if (!applied.ok) return applied.error;
  try {
    Halide::Pipeline p = applied.built->pipeline;
    const Halide::Target target = Halide::Target(halide_target == "host" ? targets::host_halide_target() : halide_target);
    p.compile_to_module(p.infer_arguments(), "ktune_candidate", target);
  } catch (const Halide::Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::string loop_nest_text(const ApplyResult& applied) {
  if (!applied.ok) return "";
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  try {
    Halide::Pipeline p = applied.built->pipeline;
    p.print_loop_nest();
  } catch (const Halide::Error& e) {
    std::cerr.rdbuf(old);
    return std::string("error: ") + e.what();
  }
  std::cerr.rdbuf(old);
  return captured.str();
}

}  // namespace ktune::scheduler
