#include "tools/ktune/cli_util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/error.h"
#include "common/user_json.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::cli {

std::map<std::string, std::string> parse_params(const std::vector<std::string>& params, const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const std::string& p : params) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UserError(format_user_error(flag, "", "expected k=v, found \"" + p + "\""));
    }
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

std::vector<std::unique_ptr<subgraphs::Subgraph>> load_subgraphs(const std::vector<std::string>& specs,
                                                                 const std::vector<std::string>& generators,
                                                                 const std::vector<std::string>& params,
                                                                 const std::vector<std::string>& inputs,
                                                                 const std::vector<std::string>& input_ranges) {
  if (!params.empty() && generators.empty()) throw UserError("--param sets generator parameters and needs --generator");
  if (!inputs.empty() && generators.empty()) throw UserError("--input sets generator scalar inputs and needs --generator");
  if (!input_ranges.empty() && generators.empty()) {
    throw UserError("--input-range sets the data of generator inputs and needs --generator (a spec gives \"range\" per input)");
  }
  std::vector<std::unique_ptr<subgraphs::Subgraph>> out;
  for (const std::string& path : specs) out.push_back(subgraphs::load_spec_subgraph(path));
  const auto values = parse_params(params);
  const auto scalars = parse_params(inputs, "--input");
  const auto ranges = subgraphs::parse_input_range_flags(input_ranges);
  for (const std::string& g : generators) out.push_back(subgraphs::load_generator_subgraph(g, values, scalars, ranges));
  return out;
}

namespace {

constexpr const char* kInputRangeHelp =
    "range the seeded data of a generator input buffer is drawn from, NAME=LO,HI (repeatable; default: "
    "[0, 1) for floats, the type's range for integers)";

}  // namespace

std::vector<std::unique_ptr<subgraphs::Subgraph>> SubgraphOptions::load() const {
  return load_subgraphs(specs, generators, params, inputs, input_ranges);
}

void add_subgraph_options(CLI::App& sub, SubgraphOptions& opt, const SubgraphOptionsHelp& help) {
  if (help.single) {
    // Given once; an empty value names nothing.
    auto one = [](std::vector<std::string>& list) {
      return [&list](const std::string& value) { list.assign(value.empty() ? 0 : 1, value); };
    };
    sub.add_option_function<std::string>("spec", one(opt.specs), help.specs);
    sub.add_option_function<std::string>("--generator", one(opt.generators), help.generator);
  } else {
    sub.add_option("specs", opt.specs, help.specs);
    sub.add_option("--generator", opt.generators, help.generator);
  }
  sub.add_option("--param", opt.params, "generator parameter k=v (repeatable)");
  sub.add_option("--input", opt.inputs, "value of a generator scalar input, name=value (repeatable; default: its estimate)");
  sub.add_option("--input-range", opt.input_ranges, kInputRangeHelp);
}

CLI::Validator finite_range(double lo, double hi) {
  const std::string range = "[" + CLI::detail::to_string(lo) + ", " + CLI::detail::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !(v >= lo && v <= hi)) {
          return "expected a number in " + range + ", found \"" + text + "\"";
        }
        return "";
      },
      "NUMBER in " + range);
}

CLI::Validator thread_count() {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  const int most = 4 * cores;
  return CLI::Validator(
      [cores, most](std::string& text) -> std::string {
        char* end = nullptr;
        const long v = std::strtol(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0' || v < 0 || v > most) {
          return "expected 0 (every core) to " + std::to_string(most) + " threads (4 x " + std::to_string(cores) +
                 " cores), found \"" + text + "\"";
        }
        if (v > cores) {
          std::fprintf(stderr, "ktune: warning: %ld threads on %d cores share cores; timings will be slower than %d threads\n",
                       v, cores, cores);
        }
        return "";
      },
      "0 to " + std::to_string(most));
}

void check_timing_flags(CLI::Option* repeat_min_ms, CLI::Option* min_repeats) {
  repeat_min_ms->check(finite_range(0.001, 600000));
  min_repeats->check(CLI::Range(1, 100000));
}

scheduler::Schedule read_schedule_file(const std::string& path) {
  return scheduler::Schedule::from_json(read_user_json(path, "schedule file"), path);
}

CLI::Option* add_allocation_option(CLI::App& sub, std::string& value) {
  return sub
      .add_option("--allocation", value,
                  "how kernels' buffers are allocated: aot (as in a user's AOT build: large buffers mapped and "
                  "faulted in per call where the C library would) or process (the measuring process's warm heap)")
      ->check(CLI::IsMember({"aot", "process"}))
      ->capture_default_str();
}

}  // namespace ktune::cli
