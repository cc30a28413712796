// ktune_features_bench: feature extraction speed on every suite subgraph. For each one it
// draws N schedules (samples and mutations of them, as a search would), then extracts
// their features with a fresh FeatureExtractor on one thread (candidates per second per
// core, isl caches cold at the start) and again with TBB on every core. --dump prints the
// named features of the heuristic schedule instead.
//
//   ktune_features_bench [--suite DIR] [--count N] [--seed S] [--dump NAME [--schedule FILE]]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "cost_model/extractor.h"
#include "cost_model/features.h"
#include "scheduler/analysis.h"
#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"

namespace {

using Clock = std::chrono::steady_clock;
using ktune::scheduler::Schedule;

struct BenchOptions {
  std::string suite = std::string(KTUNE_SOURCE_DIR) + "/bench/suite";  // folder of spec files
  int count = 2000;       // schedules per subgraph
  uint64_t seed = 1;      // sampling seed
  std::string dump;       // subgraph name whose heuristic schedule's features are printed
  std::string schedule;   // with --dump: a schedule JSON file to print instead of the heuristic
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Distinct samples and mutations of earlier draws, like a search's deduplicated
// population (a repeated schedule would only measure the caches).
std::vector<Schedule> draw(const ktune::scheduler::Space& space, int count, uint64_t seed) {
  ktune::scheduler::Rng rng(seed);
  std::vector<Schedule> out;
  std::set<std::string> seen;
  for (int tries = 0; static_cast<int>(out.size()) < count && tries < count * 4; ++tries) {
    std::optional<Schedule> s;
    if (out.size() >= 8 && rng.chance(0.5)) {
      s = space.mutate(out[rng.below(static_cast<int64_t>(out.size()))], rng);
    } else {
      s = space.sample(rng);
    }
    if (s && seen.insert(s->hash()).second) out.push_back(*s);
  }
  return out;
}

int run(const BenchOptions& opt) {
  std::vector<std::filesystem::path> specs;
  for (const auto& e : std::filesystem::directory_iterator(opt.suite)) {
    if (e.path().extension() == ".json") specs.push_back(e.path());
  }
  std::sort(specs.begin(), specs.end());
  if (specs.empty()) throw ktune::UserError(opt.suite + ": no *.json spec files");
  const ktune::scheduler::TargetInfo target =
      ktune::scheduler::target_info_from_device(ktune::targets::detect_host_device());
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::printf("feature extraction: %d features (version %d), %d schedules per subgraph, %u hardware threads\n",
              ktune::cost_model::feature_count(), ktune::cost_model::kFeatureVersion, opt.count, hw);
  std::printf("%-16s %6s %12s %12s %12s %10s %8s\n", "subgraph", "stages", "1-core/s", "1-core warm/s", "TBB/s",
              "isl calls", "schedules");
  double total_serial = 0, total_count = 0, total_tbb = 0;
  for (const auto& path : specs) {
    const auto sg = ktune::subgraphs::load_spec_subgraph(path.string());
    ktune::scheduler::Space space(ktune::scheduler::analyze(*sg, target));
    if (!opt.dump.empty()) {
      if (sg->name() != opt.dump) continue;
      const auto names = ktune::cost_model::feature_names();
      Schedule h = space.heuristic();
      if (!opt.schedule.empty()) {
        std::ifstream in(opt.schedule);
        std::stringstream text;
        text << in.rdbuf();
        h = Schedule::from_json(nlohmann::json::parse(text.str()), opt.schedule);
      }
      std::printf("%s\n", h.to_json().dump().c_str());
      const auto v = ktune::cost_model::extract_features(space.analysis(), h);
      for (size_t i = 0; i < v.size(); ++i) std::printf("%-40s %g\n", names[i].c_str(), v[i]);
      return 0;
    }
    const std::vector<Schedule> schedules = draw(space, opt.count, opt.seed);
    int stages = 0;
    for (const auto& f : space.analysis().funcs) stages += static_cast<int>(f.stages.size());

    ktune::cost_model::FeatureExtractor serial(space.analysis());
    auto t0 = Clock::now();
    serial.extract(schedules, 1);
    const double cold = seconds_since(t0);
    t0 = Clock::now();
    serial.extract(schedules, 1);
    const double warm = seconds_since(t0);
    const auto stats = serial.stats();

    ktune::cost_model::FeatureExtractor parallel(space.analysis());
    t0 = Clock::now();
    parallel.extract(schedules);
    const double tbb = seconds_since(t0);

    const double n = static_cast<double>(schedules.size());
    std::printf("%-16s %6d %12.0f %12.0f %12.0f %10lld %8zu\n", sg->name().c_str(), stages, n / cold, n / warm,
                n / tbb, static_cast<long long>(stats.isl_calls), schedules.size());
    total_serial += cold;
    total_tbb += tbb;
    total_count += n;
  }
  if (opt.dump.empty()) {
    std::printf("%-16s %6s %12.0f %12s %12.0f\n", "all", "", total_count / total_serial, "", total_count / total_tbb);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ktune_features_bench: feature extraction rate per core and with TBB on the suite"};
  BenchOptions opt;
  app.add_option("--suite", opt.suite, "folder of suite spec files")->capture_default_str();
  app.add_option("--count", opt.count, "schedules per subgraph")->capture_default_str();
  app.add_option("--seed", opt.seed, "sampling seed")->capture_default_str();
  app.add_option("--dump", opt.dump, "print the features of this subgraph's heuristic schedule");
  app.add_option("--schedule", opt.schedule, "with --dump: print this schedule's features instead");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(opt);
  } catch (const ktune::UserError& e) {
    std::fprintf(stderr, "ktune_features_bench: error: %s\n", e.what());
    return 2;
  }
}
