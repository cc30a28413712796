#include "cost_model/internal/feature_inputs.h"

#include <algorithm>
#include <cmath>
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

namespace {

// Bytes moved into a cache whose capacity is reached at `level`: the working set of that
// level, once per execution of it.
double traffic(const StageModel& sm, const StageMetrics& m, int level) {
  return static_cast<double>(sm.realizations) * static_cast<double>(sm.executions(level)) *
         static_cast<double>(m.ws_bytes[level]);
}

StageMetrics stage_metrics(const StageModel& sm, const scheduler::TargetInfo& t) {
  StageMetrics m;
  const double r = static_cast<double>(sm.realizations);
  m.points = r * static_cast<double>(sm.points);
  m.iterations = r * static_cast<double>(sm.iterations);
  m.ops = m.points * sm.ops;
  m.loads = m.points * sm.loads;
  m.work = m.points * (sm.ops + sm.loads + 1);
  m.tasks = sm.tasks * sm.outer_tasks;
  const double cores = std::max(1, t.cores);
  m.speedup = m.tasks <= 1 ? 1.0 : static_cast<double>(m.tasks) / std::ceil(static_cast<double>(m.tasks) / cores);
  const bool vectorized = sm.vector_width > 1;
  m.lanes = vectorized ? static_cast<double>(std::min<int64_t>(sm.vector_width, std::max(1, t.vector_lanes))) : 1.0;
  for (const AccessGroupModel& g : sm.groups) {
    for (size_t p = 0; p < g.paths.size(); ++p) {
      if (g.paths[p].size() == 1 && g.paths[p][0] < 0) continue;  // the store
      if (!vectorized) {
        m.loads_scalar += m.points;
        continue;
      }
      const int64_t step = g.vector_steps[p];
      if (step == 0) {
        m.loads_broadcast += m.points;
      } else if (step == 1 || step == -1) {
        m.loads_dense += m.points;
      } else {
        m.loads_strided += m.points;
      }
    }
  }
  m.load_instructions = (m.loads_dense + m.loads_broadcast + m.points) / m.lanes + m.loads_strided + m.loads_scalar;
  m.ws_bytes.assign(sm.loops.size() + 1, 0);
  for (const AccessGroupModel& g : sm.groups) {
    for (size_t k = 0; k < g.levels.size(); ++k) m.ws_bytes[k] += g.levels[k]->lines * kLineBytes;
  }
  m.l1_level = fit_level(m.ws_bytes, static_cast<double>(t.l1_bytes));
  m.l2_level = fit_level(m.ws_bytes, static_cast<double>(t.l2_bytes));
  m.llc_level = fit_level(m.ws_bytes, llc_share(t, m.tasks));
  m.l1_traffic = traffic(sm, m, m.l1_level);
  m.l2_traffic = traffic(sm, m, m.l2_level);
  m.dram_traffic = traffic(sm, m, m.llc_level);
  for (int q = 0; q < sm.depth(); ++q) {
    if (!sm.loops[q].unrolled && !sm.loops[q].vectorized) m.loop_overhead += static_cast<double>(sm.executions(q));
  }
  m.loop_overhead *= r;
  m.launches = sm.tasks > 1 ? static_cast<double>(sm.tasks) * r : 0.0;
  return m;
}

}  // namespace

FeatureInputs make_feature_inputs(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                  const ScheduleModel& model) {
  FeatureInputs in{analysis, facts, model, {}, {}};
  for (const StageModel& sm : model.stages) in.metrics.push_back(stage_metrics(sm, analysis.target));
  for (const BufferFacts& b : facts.buffers) {
    const bool output = b.func >= 0 && analysis.funcs[b.func].is_output;
    if (b.func < 0 || output) in.compulsory_bytes += static_cast<double>(b.elements() * kBytesPerElement);
  }
  for (const StageModel& sm : model.stages) in.points_ideal += static_cast<double>(facts.stages[sm.func][sm.stage].points());
  in.by_work.resize(model.stages.size());
  std::iota(in.by_work.begin(), in.by_work.end(), 0);
  std::stable_sort(in.by_work.begin(), in.by_work.end(),
                   [&](int a, int b) { return in.metrics[a].work > in.metrics[b].work; });
  return in;
}

}  // namespace ktune::cost_model::internal
