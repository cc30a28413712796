// `ktune space SPEC [--generator LIB:NAME] [--sample N] [--seed S] [--schedule FILE]
//  [--named naive|heuristic] [--format json|halide|loopnest] [--stats N]`
// Prints sampled, named or given schedules as JSON, as Halide source, or as the loop
// nest Halide lowers them to. --stats N draws N samples and N mutations and prints the
// acceptance rate of every validator, Halide's rejection rate of what they accept, and
// the speed of sample + validate.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "common/error.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

using scheduler::Schedule;

struct SpaceOptions {
  SubgraphOptions subgraph;        // one spec file or one Halide Generator
  int sample = 0;                  // number of schedules to sample
  uint64_t seed = 1;
  std::string schedule_file;       // a schedule as JSON
  std::string named;               // naive | heuristic
  std::string format = "json";     // json | halide | loopnest
  int stats = 0;                   // draws for the acceptance statistics
};

std::unique_ptr<subgraphs::Subgraph> load_subgraph(const SpaceOptions& opt) {
  if (opt.subgraph.specs.empty() == opt.subgraph.generators.empty()) {
    throw UserError("space: give one SPEC file or --generator LIB:NAME");
  }
  return std::move(opt.subgraph.load().front());
}

void print_schedule(const Schedule& s, const subgraphs::Subgraph& sg, const scheduler::Space& space,
                    const std::string& format, const std::string& label) {
  if (format == "json") {
    std::printf("%s\n", s.to_json().dump().c_str());
    return;
  }
  const scheduler::ApplyResult applied = scheduler::apply(s, sg, space.analysis());
  if (!applied.ok) {
    std::printf("// %s: Halide rejected the schedule: %s\n", label.c_str(), applied.error.c_str());
    return;
  }
  if (format == "halide") {
    std::printf("%s\n", applied.source.c_str());
  } else {
    std::printf("// %s (schedule %s)\n%s\n", label.c_str(), s.hash().c_str(), scheduler::loop_nest_text(applied).c_str());
  }
}

int run_stats(const SpaceOptions& opt, const subgraphs::Subgraph& sg, const scheduler::Space& space) {
  scheduler::Rng rng(opt.seed);
  scheduler::ValidationCounts counts;
  std::vector<Schedule> accepted;
  std::map<std::string, std::pair<int, int>> per_mutator;  // name -> (proposed, accepted)
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < opt.stats; ++i) {
    const Schedule s = space.draw(rng);
    if (!space.validate(s, &counts)) accepted.push_back(s);
  }
  const double sample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const size_t sampled_ok = accepted.size();
  int mutations = 0;
  for (int i = 0; i < opt.stats && !accepted.empty(); ++i) {
    std::string name;
    const Schedule& parent = accepted[rng.below(static_cast<int64_t>(sampled_ok))];
    std::optional<Schedule> m = space.propose(parent, rng, &name);
    if (!m) continue;
    ++mutations;
    ++per_mutator[name].first;
    if (!space.validate(*m, &counts)) {
      ++per_mutator[name].second;
      accepted.push_back(*m);
    }
  }
  int halide_rejected = 0;
  std::string first_rejection;
  for (const Schedule& s : accepted) {
    const scheduler::ApplyResult applied = scheduler::apply(s, sg, space.analysis());
    const auto err = scheduler::lower(applied, space.analysis().target.halide_target);
    if (err) {
      ++halide_rejected;
      if (first_rejection.empty()) first_rejection = *err;
    }
  }
  std::printf("%s: %d samples (%zu valid), %d mutations proposed (%zu valid)\n", sg.name().c_str(), opt.stats,
              sampled_ok, mutations, accepted.size() - sampled_ok);
  std::printf("  sample + validate: %.0f schedules/s\n", opt.stats / std::max(sample_s, 1e-9));
  std::printf("  validators (rejections of %lld checked):\n", static_cast<long long>(counts.checked));
  for (const auto& v : scheduler::default_validators()) {
    const int64_t r = counts.rejected.count(std::string(v->name())) ? counts.rejected.at(std::string(v->name())) : 0;
    std::printf("    %-18s %6lld rejected\n", std::string(v->name()).c_str(), static_cast<long long>(r));
  }
  std::printf("  mutators (valid / proposed):\n");
  for (const auto& [name, pa] : per_mutator) std::printf("    %-18s %4d / %4d\n", name.c_str(), pa.second, pa.first);
  const double accept = accepted.empty() ? 0 : 100.0 * (accepted.size() - halide_rejected) / accepted.size();
  std::printf("  Halide lowering accepted %zu of %zu valid schedules (%.2f%%)\n", accepted.size() - halide_rejected,
              accepted.size(), accept);
  if (!first_rejection.empty()) std::printf("  first Halide rejection: %s\n", first_rejection.c_str());
  return kExitOk;
}

int run_space(const SpaceOptions& opt) {
  const std::unique_ptr<subgraphs::Subgraph> sg = load_subgraph(opt);
  const scheduler::TargetInfo target = scheduler::target_info_from_device(targets::detect_host_device());
  const scheduler::Space space(scheduler::analyze(*sg, target));
  if (opt.stats > 0) return run_stats(opt, *sg, space);
  std::vector<std::pair<Schedule, std::string>> schedules;
  if (!opt.schedule_file.empty()) {
    Schedule s = read_schedule_file(opt.schedule_file);
    if (auto reason = space.validate(s)) {
      throw UserError(format_user_error(opt.schedule_file, "", "the schedule is not valid for " + sg->name() + ": " + *reason));
    }
    schedules.emplace_back(s, opt.schedule_file);
  }
  if (opt.named == "naive") schedules.emplace_back(space.naive(), "naive");
  if (opt.named == "heuristic") schedules.emplace_back(space.heuristic(), "heuristic");
  scheduler::Rng rng(opt.seed);
  for (int i = 0; i < opt.sample; ++i) {
    auto s = space.sample(rng);
    if (s) schedules.emplace_back(*s, "sample " + std::to_string(i));
  }
  if (schedules.empty()) schedules.emplace_back(space.heuristic(), "heuristic");
  for (const auto& [s, label] : schedules) print_schedule(s, *sg, space, opt.format, label);
  return kExitOk;
}

}  // namespace

CommandRunner register_space(CLI::App& sub) {
  auto opt = std::make_shared<SpaceOptions>();
  add_subgraph_options(sub, opt->subgraph, {"JSON spec file of the subgraph", "a Halide Generator as LIB:NAME", true});
  sub.add_option("--sample", opt->sample, "number of schedules to sample")->check(CLI::Range(0, 1000000))->capture_default_str();
  sub.add_option("--seed", opt->seed, "random seed")->capture_default_str();
  sub.add_option("--schedule", opt->schedule_file, "a schedule (JSON) to validate and print");
  sub.add_option("--named", opt->named, "a named reference schedule")->check(CLI::IsMember({"naive", "heuristic"}));
  sub.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"json", "halide", "loopnest"}))->capture_default_str();
  sub.add_option("--stats", opt->stats, "draw N samples and N mutations and print acceptance rates")
      ->check(CLI::Range(1, 1000000));
  return [opt] { return run_space(*opt); };
}

}  // namespace ktune::cli
