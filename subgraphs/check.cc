#include "subgraphs/check.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/child_process.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/reference_plan.h"
#include "targets/host_target.h"

namespace ktune::subgraphs {
namespace {

// JSON has no NaN or infinity (nlohmann writes null): the values shown beside a failure.
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A CheckResult as the child sends it to its parent, and back.
nlohmann::json to_json(const CheckResult& r) {
  const Comparison& c = r.comparison;
  return {{"max_error", std::isfinite(c.max_error) ? c.max_error : -1.0},
          {"worst_output", c.worst_output}, {"worst_index", c.worst_index},
          {"got", finite_or_zero(c.got)}, {"want", finite_or_zero(c.want)},
          {"tolerance", c.tolerance}, {"scale", c.scale}, {"typical_scale", c.typical_scale},
          {"mismatches", c.mismatches}, {"rare_elements", c.rare_elements}, {"allowed_rare", c.allowed_rare},
          {"rare_output", c.rare_output}, {"rare_index", c.rare_index},
          {"rare_got", finite_or_zero(c.rare_got)}, {"rare_want", finite_or_zero(c.rare_want)},
          {"compile_ms", r.compile_ms}, {"run_ms", r.run_ms}, {"reference_ms", r.reference_ms}, {"plan", r.plan}, {"error", r.error}};
}

CheckResult from_json(const nlohmann::json& j) {
  CheckResult r;
  Comparison& c = r.comparison;
  const double max_error = j.value("max_error", -1.0);
  c.max_error = max_error < 0 ? std::numeric_limits<double>::infinity() : max_error;
  c.worst_output = j.value("worst_output", size_t{0});
  c.worst_index = j.value("worst_index", int64_t{-1});
  c.got = j.value("got", 0.0);
  c.want = j.value("want", 0.0);
  c.tolerance = j.value("tolerance", kTolerance);
  c.scale = j.value("scale", 0.0);
  c.typical_scale = j.value("typical_scale", 0.0);
  c.mismatches = j.value("mismatches", int64_t{0});
  c.rare_elements = j.value("rare_elements", int64_t{0});
  c.allowed_rare = j.value("allowed_rare", int64_t{0});
  c.rare_output = j.value("rare_output", size_t{0});
  c.rare_index = j.value("rare_index", int64_t{-1});
  c.rare_got = j.value("rare_got", 0.0);
  c.rare_want = j.value("rare_want", 0.0);
  r.compile_ms = j.value("compile_ms", 0.0);
  r.run_ms = j.value("run_ms", 0.0);
  r.reference_ms = j.value("reference_ms", 0.0);
  r.plan = j.value("plan", std::string());
  r.error = j.value("error", std::string());
  return r;
}

}  // namespace

CheckResult check_subgraph(const Subgraph& subgraph, uint64_t seed) {
  CheckResult result;
  const std::vector<Tensor> inputs = subgraph.make_inputs(seed);
  auto start = std::chrono::steady_clock::now();
  try {
    const std::vector<Tensor> want = subgraph.reference(inputs);
    result.reference_ms = ms_since(start);
    const BuiltPipeline built = subgraph.build();
    const ReferencePlan plan = plan_reference(
        built, subgraph.outputs(), known_values(built, subgraph.inputs(), subgraph.outputs(), subgraph.scalars()));
    result.plan = plan.describe();
    apply_reference_schedule(built, plan);
    const Halide::Target target = reference_target(plan, Halide::Target(targets::jit_halide_target()));
    start = std::chrono::steady_clock::now();
    Halide::Pipeline pipeline = built.pipeline;
    pipeline.compile_jit(target);
    result.compile_ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    const std::vector<Tensor> got = run_reference_plan(built, plan, inputs, subgraph.inputs(), subgraph.outputs(), target);
    result.run_ms = ms_since(start);
    result.comparison = compare_outputs(got, want, subgraph.outputs());
  } catch (const std::exception& e) {  // Halide's errors, and a reference that cannot be planned (UserError)
    result.error = e.what();
  }
  return result;
}

CheckResult check_isolated(const std::function<CheckResult()>& check, double timeout_ms) {
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        const std::string text = to_json(check()).dump();
        write_all(fd, text.data(), text.size());
      },
      timeout_ms);
  CheckResult r;
  r.error = describe_abnormal_end(child, "the check", timeout_ms);
  if (!r.error.empty()) return r;
  const nlohmann::json j = nlohmann::json::parse(child.output, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.error = child.exit_code == kChildExceptionExit ? "the check threw an exception" : "the check ended without an answer";
    return r;
  }
  return from_json(j);
}

CheckResult check_subgraph_isolated(const Subgraph& subgraph, uint64_t seed, double timeout_ms) {
  return check_isolated([&] { return check_subgraph(subgraph, seed); }, timeout_ms);
}

}  // namespace ktune::subgraphs
