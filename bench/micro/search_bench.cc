// ktune_search_bench: does the cost model earn its place? For each subgraph (default: the
// public suite) it runs the tuner twice with the same number of measured trials, once with
// the evolutionary search guided by the cost model and once with random search (fresh
// valid samples), each into its own fresh database, and prints per subgraph and as
// geometric means: ktune's best against the heuristic schedule and against random search,
// and how many trials ktune needed to reach random search's final best.
//
//   ktune_search_bench [SPEC...] [--trials N] [--threads N] [--out DIR]
#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "common/duration_text.h"
#include "common/halide_version.h"

namespace {

using ktune::search::TaskSummary;

TaskSummary tune_one(const std::string& spec, bool random, int trials, int threads, const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  ktune::search::TuneOptions o;
  o.db_path = db;
  o.device = ktune::targets::detect_host_device();
  o.budget.trials = trials;
  o.budget.text = std::to_string(trials) + " trials";
  o.search.random_search = random;
  o.threads = threads;
  o.ktune_version = "bench";
  o.halide_version = ktune::kHalideVersion;
  std::vector<std::unique_ptr<ktune::subgraphs::Subgraph>> subgraphs;
  subgraphs.push_back(ktune::subgraphs::load_spec_subgraph(spec));
  ktune::search::Progress progress(false, "", std::nullopt, trials);
  ktune::search::Tuner tuner(o, std::move(subgraphs), progress);
  std::atomic<int> stop{0};
  return tuner.run(stop).tasks.at(0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Compares ktune's search with random search at the same number of trials"};
  std::vector<std::string> specs;
  int trials = 48;
  int threads = 0;
  std::string out = "/tmp/ktune_search_bench";
  app.add_option("specs", specs, "spec files (default: bench/suite/*.json)");
  app.add_option("--trials", trials, "measured trials per subgraph and strategy")->capture_default_str();
  app.add_option("--threads", threads, "threads per kernel (0 = every core)")->capture_default_str();
  app.add_option("--out", out, "directory for the databases")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (specs.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(KTUNE_SOURCE_DIR) + "/bench/suite")) {
      if (e.path().extension() == ".json") specs.push_back(e.path().string());
    }
    std::sort(specs.begin(), specs.end());
  }
  std::filesystem::create_directories(out);
  std::printf("%-16s %11s %11s %11s %9s %9s %18s\n", "subgraph", "heuristic", "random", "ktune", "vs heur.", "vs random",
              "trials to match");
  double log_heur = 0, log_random = 0, log_fraction = 0;
  int n = 0;
  for (const std::string& spec : specs) {
    const std::string name = std::filesystem::path(spec).stem().string();
    const TaskSummary rnd = tune_one(spec, true, trials, threads, out + "/" + name + "-random.db");
    const TaskSummary kt = tune_one(spec, false, trials, threads, out + "/" + name + "-ktune.db");
    // Trials ktune needed to reach random search's final best, within the 2% that separate
    // two measurements of the same kernel on a quiet machine.
    int match = -1;
    for (size_t i = 0; i < kt.best_history.size(); ++i) {
      if (kt.best_history[i] > 0 && rnd.best_ns > 0 && kt.best_history[i] <= 1.02 * rnd.best_ns) {
        match = static_cast<int>(i) + 1;
        break;
      }
    }
    const double heur = rnd.heuristic_ns > 0 ? rnd.heuristic_ns : kt.heuristic_ns;
    std::printf("%-16s %11s %11s %11s %8.2fx %8.2fx %18s\n", name.c_str(), ktune::format_ns(heur).c_str(),
                ktune::format_ns(rnd.best_ns).c_str(), ktune::format_ns(kt.best_ns).c_str(),
                heur / kt.best_ns, rnd.best_ns / kt.best_ns,
                match < 0 ? "not reached" : (std::to_string(match) + " of " + std::to_string(trials)).c_str());
    std::fflush(stdout);
    log_heur += std::log(heur / kt.best_ns);
    log_random += std::log(rnd.best_ns / kt.best_ns);
    log_fraction += std::log((match < 0 ? trials : match) / static_cast<double>(trials));
    ++n;
  }
  if (n > 0) {
    std::printf("\ngeometric mean: ktune vs heuristic %.2fx, ktune vs random search %.2fx, trials to match random search %.0f%% of %d\n",
                std::exp(log_heur / n), std::exp(log_random / n), 100 * std::exp(log_fraction / n), trials);
  }
  return 0;
}
