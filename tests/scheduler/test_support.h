// Shared by the scheduler tests: suite subgraphs, a fixed CPU target, and running a
// schedule for real (apply, JIT-compile, run on seeded inputs, compare with the reference).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/compare.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_target.h"

namespace ktune::scheduler::testing {

inline std::unique_ptr<subgraphs::SpecSubgraph> suite_subgraph(const std::string& name) {
  return subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + name + ".json");
}

// A subgraph of the suite in another layout (bench/suite_layouts/).
inline std::unique_ptr<subgraphs::SpecSubgraph> layout_subgraph(const std::string& name) {
  return subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/bench/suite_layouts/" + name + ".json");
}

// A subgraph of the shapes and fusions the suite does not have (bench/suite_shapes/).
inline std::unique_ptr<subgraphs::SpecSubgraph> shapes_subgraph(const std::string& name) {
  return subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/bench/suite_shapes/" + name + ".json");
}

inline std::unique_ptr<subgraphs::SpecSubgraph> spec_subgraph(const std::string& text) {
  return std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(text, "test.json"));
}

// Two pointwise Funcs over a 6 x 20 input: r = relu(a), read by the output y = gelu(r).
inline const char* kTwoPointwiseSpec = R"({"inputs": [{"name": "a", "shape": [6, 20]}],
  "ops": [{"op": "relu", "inputs": ["a"], "output": "r"}, {"op": "gelu", "inputs": ["r"], "output": "y"}], "outputs": ["y"]})";

// A fixed AVX2-class CPU target so the tests do not depend on the machine.
inline TargetInfo test_target() {
  TargetInfo t;
  t.halide_target = "host";
  t.vector_lanes = 8;
  t.cores = 2;
  return t;
}

// The same target with AVX-512's 16 lanes and 32 vector registers (the templates' 4 x 4 tile).
inline TargetInfo avx512_test_target() {
  TargetInfo t = test_target();
  t.vector_lanes = 16;
  t.vector_registers = 32;
  return t;
}

// Runs `schedule` and compares with `want` (the reference on `inputs`) as the gate does.
// Returns "" on a match, else what went wrong.
inline std::string run_and_compare(const subgraphs::Subgraph& sg, const Analysis& analysis, const Schedule& schedule,
                                   const std::vector<subgraphs::Tensor>& inputs,
                                   const std::vector<subgraphs::Tensor>& want) {
  const ApplyResult applied = apply(schedule, sg, analysis);
  if (!applied.ok) return "apply: " + applied.error;
  try {
    const auto got = subgraphs::run_pipeline(*applied.built, inputs, sg.inputs(), sg.outputs(),
                                             Halide::Target(targets::jit_halide_target()));
    // As the gate compares: an integer output rounded from float arithmetic may flip a few
    // elements by one where a schedule reassociates the arithmetic.
    const subgraphs::Comparison c = subgraphs::compare_outputs(got, want, sg.outputs());
    return c.passed() ? "" : c.describe();
  } catch (const Halide::Error& e) {
    return std::string("Halide: ") + e.what();
  }
}

// Runs `fn` in a forked child and returns what it returned, or "crashed with signal N".
// Lowering or running a schedule can crash inside Halide; the test must survive to say which.
inline std::string isolated(const std::function<std::string()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string out = fn();
    const ssize_t n = write(fds[1], out.data(), out.size());
    (void)n;
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "crashed with signal " + std::to_string(WTERMSIG(status));
  return out;
}

}  // namespace ktune::scheduler::testing
