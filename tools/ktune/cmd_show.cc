// `ktune show SPEC... | --generator LIB:NAME [--param k=v ...] [--check] [--format text|json]`
// Prints each subgraph's workload key, shapes, stages with their loops, FLOPs and bytes;
// with --check it also runs the trivially scheduled pipeline on seeded inputs and
// compares it with the reference, and for a Generator runs its own schedule against the
// same reference (a failure there is a warning about the gate or the data). Exit code 1 if
// any check of the trivial schedule fails.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "subgraphs/check.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/own_schedule_check.h"
#include "subgraphs/spec_subgraph.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

using subgraphs::CheckResult;
using subgraphs::Subgraph;

struct ShowOptions {
  SubgraphOptions subgraphs;            // spec files and Halide Generators
  bool check = false;                   // run and compare with the reference
  uint64_t seed = 1;                    // seed of the generated inputs
  std::string format = "text";
};

// A check runs the trivially scheduled pipeline once, in a child process.
constexpr double kCheckTimeoutMs = 600000;

std::string loops_text(const std::vector<subgraphs::LoopInfo>& loops) {
  std::string s;
  for (const auto& l : loops) {
    s += (s.empty() ? "" : " ") + l.name + ":" + (l.extent < 0 ? std::string("?") : std::to_string(l.extent));
  }
  return s;
}

std::string tensors_text(const std::vector<subgraphs::TensorInfo>& tensors) {
  std::string s;
  for (const auto& t : tensors) {
    s += (s.empty() ? "" : "  ") + t.name + " " + subgraphs::to_string(t.dtype) + subgraphs::shape_to_string(t.shape);
    if (!t.at_origin()) s += " at " + subgraphs::shape_to_string(t.mins);
  }
  return s;
}

// The seeded data of every input: "input u16 in [0, 65535]  alpha f32 in [0, 1)".
std::string data_text(const Subgraph& sg) {
  std::string s;
  for (size_t i = 0; i < sg.inputs().size(); ++i) {
    const auto [lo, hi] = sg.input_range(i);
    char range[96];
    std::snprintf(range, sizeof(range), "[%.6g, %.6g%s", lo, hi, subgraphs::is_float(sg.inputs()[i].dtype) ? ")" : "]");
    s += (s.empty() ? "" : "  ") + sg.inputs()[i].name + " in " + range;
  }
  return s;
}

nlohmann::json check_json(const CheckResult& check) {
  return {{"passed", check.passed()},
          {"max_relative_error", check.error.empty() ? check.comparison.max_error : -1.0},
          {"tolerance", check.comparison.tolerance},
          {"compile_ms", check.compile_ms},
          {"run_ms", check.run_ms},
          {"reference_ms", check.reference_ms},
          {"reference_plan", check.plan},
          {"summary", check.error.empty() ? check.comparison.describe() : ""},
          {"error", check.error}};
}

std::string scalars_text(const std::vector<subgraphs::ScalarInfo>& scalars) {
  std::string s;
  for (const auto& v : scalars) {
    char value[64];
    std::snprintf(value, sizeof(value), "%.9g", v.value);
    s += (s.empty() ? "" : "  ") + v.name + " " + subgraphs::to_string(v.dtype) + " = " + value;
  }
  return s;
}

nlohmann::json to_json(const Subgraph& sg, const CheckResult* check, const CheckResult* own) {
  nlohmann::json j = {{"name", sg.name()},
                      {"kind", sg.kind()},
                      {"key", sg.key().key},
                      {"family_key", sg.key().family_key},
                      {"shapes", sg.key().shapes},
                      {"flops", sg.flops()},
                      {"bytes", sg.compulsory_bytes()}};
  for (const auto* list : {&sg.inputs(), &sg.outputs()}) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& t : *list) {
      arr.push_back({{"name", t.name}, {"dtype", subgraphs::to_string(t.dtype)}, {"shape", t.shape},
                     {"mins", t.mins_or_zero()}});
    }
    j[list == &sg.inputs() ? "inputs" : "outputs"] = arr;
  }
  for (size_t i = 0; i < sg.inputs().size(); ++i) {
    const auto [lo, hi] = sg.input_range(i);
    j["inputs"][i]["range"] = {lo, hi};
  }
  nlohmann::json scalars = nlohmann::json::array();
  for (const auto& v : sg.scalars()) {
    scalars.push_back({{"name", v.name}, {"dtype", subgraphs::to_string(v.dtype)}, {"value", v.value}});
  }
  j["scalars"] = scalars;
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& st : sg.stages()) {
    nlohmann::json s = {{"func", st.func}, {"stage", st.stage}, {"output", st.is_output}};
    for (const auto* loops : {&st.pure_loops, &st.reduction_loops}) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& l : *loops) arr.push_back({{"name", l.name}, {"extent", l.extent}});
      s[loops == &st.pure_loops ? "pure_loops" : "reduction_loops"] = arr;
    }
    stages.push_back(s);
  }
  j["stages"] = stages;
  if (check) j["check"] = check_json(*check);
  if (own) j["own_schedule_check"] = check_json(*own);
  return j;
}

// The own schedule's line: ok, FAILED with the loud warning, or why it did not run.
void print_own_schedule(const Subgraph& sg, const CheckResult& own) {
  if (!own.error.empty()) {
    std::printf("hand      not run: %s\n", own.error.c_str());
    return;
  }
  std::printf("hand      %s  %s (the Generator's own schedule against the same reference)\n",
              own.passed() ? "ok" : "FAILED", own.comparison.describe().c_str());
  const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(&sg);
  const std::string warning = gen ? subgraphs::own_schedule_gate_warning(*gen, own) : "";
  if (!warning.empty()) std::fprintf(stderr, "\n%s\n\n", warning.c_str());
}

void print_text(const Subgraph& sg, const std::string& source, const CheckResult* check, const CheckResult* own) {
  std::printf("workload  %s (%s %s)\n", sg.name().c_str(), sg.kind().c_str(), source.c_str());
  std::printf("key       %s\nfamily    %s\n", sg.key().key.c_str(), sg.key().family_key.c_str());
  std::printf("inputs    %s\noutputs   %s\n", tensors_text(sg.inputs()).c_str(), tensors_text(sg.outputs()).c_str());
  if (!sg.scalars().empty()) std::printf("scalars   %s\n", scalars_text(sg.scalars()).c_str());
  if (sg.kind() == "generator") std::printf("data      %s\n", data_text(sg).c_str());
  std::printf("flops     %.4g GFLOP   bytes %.4g MB   intensity %.3g FLOP/byte\n", sg.flops() / 1e9,
              sg.compulsory_bytes() / 1e6, sg.flops() / sg.compulsory_bytes());
  std::printf("stages    (loops innermost first, name:extent)\n");
  for (const auto& st : sg.stages()) {
    const std::string label = st.func + (st.stage == 0 ? "" : ".update(" + std::to_string(st.stage - 1) + ")");
    std::printf("  %-24s %-6s %s", label.c_str(), st.is_output ? "output" : "", loops_text(st.pure_loops).c_str());
    if (!st.reduction_loops.empty()) std::printf("  reduce %s", loops_text(st.reduction_loops).c_str());
    std::printf("\n");
  }
  if (check) {
    if (!check->error.empty()) {
      std::printf("check     FAILED: %s\n", check->error.c_str());
    } else {
      std::printf("check     %s  %s (tolerance %.0e; compile %.0f ms, run %.0f ms, reference %.0f ms)\n",
                  check->passed() ? "ok" : "FAILED", check->comparison.describe().c_str(), check->comparison.tolerance,
                  check->compile_ms, check->run_ms, check->reference_ms);
    }
    // Where the trivial schedule cannot run (subgraphs/reference_plan.h), what changed.
    if (!check->plan.empty() && check->plan != "trivial") {
      std::printf("reference the trivial schedule except: %s\n", check->plan.c_str());
    }
  }
  if (own) print_own_schedule(sg, *own);
  std::printf("\n");
}

int run_show(const ShowOptions& opt) {
  if (opt.subgraphs.empty()) {
    throw UserError("show: give at least one SPEC file or --generator LIB:NAME");
  }
  if (!opt.subgraphs.params.empty() && opt.subgraphs.generators.empty()) {
    throw UserError("show: --param sets generator parameters and needs --generator");
  }
  // load_subgraphs keeps the order: the specs, then the generators.
  std::vector<std::string> sources = opt.subgraphs.specs;
  sources.insert(sources.end(), opt.subgraphs.generators.begin(), opt.subgraphs.generators.end());
  std::vector<std::pair<std::unique_ptr<Subgraph>, std::string>> subgraphs;
  std::vector<std::unique_ptr<Subgraph>> loaded = opt.subgraphs.load();
  for (size_t i = 0; i < loaded.size(); ++i) subgraphs.emplace_back(std::move(loaded[i]), sources[i]);

  nlohmann::json all = nlohmann::json::array();
  struct Row { std::string name; double gflop, mb; size_t stages; const char* status; std::string error; };
  std::vector<Row> rows;
  bool all_passed = true;
  for (const auto& [sg, source] : subgraphs) {
    CheckResult result;
    std::optional<CheckResult> own;
    if (opt.check) {
      if (opt.format == "text") std::fprintf(stderr, "checking %s ...\n", sg->name().c_str());
      result = subgraphs::check_subgraph_isolated(*sg, opt.seed, kCheckTimeoutMs);
      all_passed &= result.passed();
      if (const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(sg.get())) {
        if (opt.format == "text") std::fprintf(stderr, "checking the own schedule of %s ...\n", sg->name().c_str());
        own = subgraphs::check_own_schedule_isolated(*gen, opt.seed, kCheckTimeoutMs);
      }
    }
    const CheckResult* own_shown = own ? &*own : nullptr;
    if (opt.format == "json") {
      all.push_back(to_json(*sg, opt.check ? &result : nullptr, own_shown));
    } else {
      print_text(*sg, source, opt.check ? &result : nullptr, own_shown);
    }
    rows.push_back({sg->name(), sg->flops() / 1e9, sg->compulsory_bytes() / 1e6, sg->stages().size(),
                    !opt.check ? "-" : result.passed() ? "ok" : "FAILED",
                    !opt.check ? "" : result.error.empty() ? result.comparison.describe() : result.error});
  }
  if (opt.format == "json") {
    std::printf("%s\n", (subgraphs.size() == 1 ? all[0] : all).dump(2).c_str());
  } else if (subgraphs.size() > 1) {
    std::printf("%-18s %9s %9s %7s  %-6s  %s\n", "subgraph", "GFLOP", "MB", "stages", "check", "against the reference");
    for (const Row& r : rows) {
      std::printf("%-18s %9.4f %9.1f %7zu  %-6s  %s\n", r.name.c_str(), r.gflop, r.mb, r.stages, r.status, r.error.c_str());
    }
  }
  return all_passed ? kExitOk : kExitFailure;
}

}  // namespace

CommandRunner register_show(CLI::App& sub) {
  auto opt = std::make_shared<ShowOptions>();
  add_subgraph_options(sub, opt->subgraphs,
                       {"JSON spec files of subgraphs", "a Halide Generator as LIB:NAME (a shared library and a generator name)"});
  sub.add_flag("--check", opt->check, "run with the trivial schedule and compare with the reference");
  sub.add_option("--seed", opt->seed, "seed of the generated inputs")->capture_default_str();
  sub.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  return [opt] { return run_show(*opt); };
}

}  // namespace ktune::cli
