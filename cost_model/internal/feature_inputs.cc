#include "cost_model/internal/feature_inputs.h"

#include <algorithm>
#include <numeric>

namespace ktune::cost_model::internal {

int fit_level(const std::vector<int64_t>& ws_bytes, double capacity) {
  int level = 0;
  for (size_t k = 0; k < ws_bytes.size(); ++k) {
    if (static_cast<double>(ws_bytes[k]) <= capacity) level = static_cast<int>(k);
  }
  return level;
}

double llc_share(const scheduler::TargetInfo& target, int64_t tasks) {
  const int64_t sharers = std::max<int64_t>(1, std::min<int64_t>(tasks, target.cores));
  return static_cast<double>(target.llc_bytes) / static_cast<double>(sharers);
}

FeatureInputs make_feature_inputs(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                  const ScheduleModel& model) {
  FeatureInputs in{analysis, facts, model, {}, {}};
  const scheduler::TargetInfo& t = analysis.target;
  for (const StageModel& sm : model.stages) {
    StageMetrics m;
    const double r = static_cast<double>(sm.realizations);
    m.points = r * static_cast<double>(sm.points);
    m.iterations = r * static_cast<double>(sm.iterations);
    m.ops = m.points * sm.ops;
    m.loads = m.points * sm.loads;
    m.work = m.points * (sm.ops + sm.loads + 1);
    m.tasks = sm.tasks * sm.outer_tasks;
    m.ws_bytes.assign(sm.loops.size() + 1, 0);
    for (const AccessGroupModel& g : sm.groups) {
      for (size_t k = 0; k < g.levels.size(); ++k) m.ws_bytes[k] += g.levels[k]->lines * kLineBytes;
    }
    m.l1_level = fit_level(m.ws_bytes, static_cast<double>(t.l1_bytes));
    m.l2_level = fit_level(m.ws_bytes, static_cast<double>(t.l2_bytes));
    m.llc_level = fit_level(m.ws_bytes, llc_share(t, m.tasks));
    in.metrics.push_back(std::move(m));
  }
  for (const BufferFacts& b : facts.buffers) {
    const bool output = b.func >= 0 && analysis.funcs[b.func].is_output;
    if (b.func < 0 || output) in.compulsory_bytes += static_cast<double>(b.elements() * kBytesPerElement);
  }
  in.by_work.resize(model.stages.size());
  std::iota(in.by_work.begin(), in.by_work.end(), 0);
  std::stable_sort(in.by_work.begin(), in.by_work.end(),
                   [&](int a, int b) { return in.metrics[a].work > in.metrics[b].work; });
  return in;
}

}  // namespace ktune::cost_model::internal
