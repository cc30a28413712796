#include "search/task_probe.h"

#include <vector>

#include "common/child_process.h"
#include "cost_model/extractor.h"
#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/space.h"
#include "subgraphs/subgraph.h"

namespace ktune::search {

std::string probe_task(const subgraphs::Subgraph& subgraph, const scheduler::TargetInfo& target, double timeout_ms) {
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        std::string report = "OK";
        try {
          const scheduler::Space space(scheduler::analyze(subgraph, target));
          std::vector<scheduler::Schedule> schedules = {space.heuristic(), space.naive()};
          scheduler::Rng rng(1);
          for (int i = 0; i < 8; ++i) {
            if (auto s = space.sample(rng)) schedules.push_back(*s);
          }
          const cost_model::FeatureExtractor features(space.analysis());
          for (const scheduler::Schedule& s : schedules) features.extract_one(s);
        } catch (const std::exception& e) {
          report = std::string("ERR") + e.what();
        }
        write_all(fd, report.data(), report.size());
      },
      timeout_ms);
  const std::string what = "analyzing " + subgraph.name() + " (analysis, schedule space and features)";
  if (std::string why = describe_abnormal_end(child, what, timeout_ms); !why.empty()) return why;
  if (child.output.rfind("ERR", 0) == 0) return what + " failed: " + child.output.substr(3);
  if (child.output != "OK") return what + " ended without an answer";
  return "";
}

}  // namespace ktune::search
