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

int64_t run_bytes(const AccessGroupModel& g, int64_t element_bytes) {
  auto rows = [](const Footprint& f) {
    int64_t n = 1;
    for (size_t d = 1; d < f.box.extent.size(); ++d) n *= f.box.extent[d];
    return n;
  };
  if (g.levels.empty() || g.levels[0]->box.extent.empty()) return 0;
  const int64_t base_rows = rows(*g.levels[0]);
  int64_t run = g.levels[0]->box.extent[0];
  for (const Footprint* f : g.levels) {
    if (f->box.extent.empty() || rows(*f) != base_rows) break;
    run = f->box.extent[0];
  }
  return run * element_bytes;
}

double llc_share(const scheduler::TargetInfo& target, int64_t tasks) {
  const int64_t sharers = std::max<int64_t>(1, std::min<int64_t>(tasks, target.cores));
  return static_cast<double>(target.llc_bytes) / static_cast<double>(sharers);
}

namespace {

// Bytes moved into a cache of `capacity` bytes whose capacity the stage's own loops reach at
// `level`: that level's working set, once per execution of it. A compute_at producer whose
// data for several consecutive realizations fits is charged once per host iteration instead.
double traffic(const ScheduleModel& model, const StageModel& sm, const StageMetrics& m, int level, double capacity) {
  if (!sm.host_lines.empty()) {
    int fits = -1;
    for (size_t i = 0; i < sm.host_lines.size(); ++i) {
      if (static_cast<double>(sm.host_lines[i] * kLineBytes) <= capacity) fits = static_cast<int>(i);
    }
    if (fits >= 0) {
      const StageModel& host = model.stages[sm.host_stage];
      return static_cast<double>(host.realizations) * static_cast<double>(host.executions(sm.host_level + fits)) *
             static_cast<double>(sm.host_lines[fits] * kLineBytes);
    }
  }
  return static_cast<double>(sm.realizations) * static_cast<double>(sm.executions(level)) *
         static_cast<double>(m.ws_bytes[level]);
}

StageMetrics stage_metrics(const ScheduleModel& model, const StageModel& sm, const scheduler::TargetInfo& t) {
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
  const int native = std::max(1, t.vector_lanes);
  m.lanes = vectorized ? static_cast<double>(std::min<int64_t>(sm.vector_width, native)) : 1.0;
  if (!vectorized && !sm.loops.empty() && !sm.loops[0].unrolled && sm.loops[0].extent >= native) {
    // Halide leaves LLVM's loop vectorizer on: a scalar innermost loop over contiguous (or
    // invariant) data, reductions included, comes out vectorized.
    bool unit = true;
    for (const AccessGroupModel& g : sm.groups) {
      for (int64_t step : g.inner_steps) unit = unit && (step == 0 || step == 1 || step == -1);
    }
    m.auto_vector = unit;
    if (unit) m.lanes = native;
  }
  for (const AccessGroupModel& g : sm.groups) {
    for (size_t p = 0; p < g.paths.size(); ++p) {
      if (g.paths[p].size() == 1 && g.paths[p][0] < 0) continue;  // the store
      if (!vectorized) {
        m.loads_scalar += m.points;
        continue;
      }
      if (p >= g.vector_steps.size()) {  // a path the vectorized loop does not index: scalar
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
  m.ws_pages.assign(sm.loops.size() + 1, 0);
  for (const AccessGroupModel& g : sm.groups) {
    for (size_t k = 0; k < g.levels.size(); ++k) {
      m.ws_bytes[k] += g.levels[k]->lines * kLineBytes;
      m.ws_pages[k] += g.levels[k]->pages;
    }
  }
  m.l1_level = fit_level(m.ws_bytes, static_cast<double>(t.l1_bytes));
  m.l2_level = fit_level(m.ws_bytes, static_cast<double>(t.l2_bytes));
  m.llc_level = fit_level(m.ws_bytes, llc_share(t, m.tasks));
  m.l1_traffic = traffic(model, sm, m, m.l1_level, static_cast<double>(t.l1_bytes));
  m.l2_traffic = traffic(model, sm, m, m.l2_level, static_cast<double>(t.l2_bytes));
  m.dram_traffic = traffic(model, sm, m, m.llc_level, llc_share(t, m.tasks));
  const int tlb_level = fit_level(m.ws_pages, kTlbEntries);
  m.tlb_misses = r * static_cast<double>(sm.executions(tlb_level)) * static_cast<double>(m.ws_pages[tlb_level]);
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
  for (const StageModel& sm : model.stages) in.metrics.push_back(stage_metrics(model, sm, analysis.target));
  for (const BufferFacts& b : facts.buffers) {
    const bool output = b.func >= 0 && analysis.funcs[b.func].is_output;
    if (b.func < 0 || output) in.compulsory_bytes += static_cast<double>(b.elements() * b.element_bytes);
  }
  for (const StageModel& sm : model.stages) in.points_ideal += static_cast<double>(facts.stages[sm.func][sm.stage].points());
  in.by_work.resize(model.stages.size());
  std::iota(in.by_work.begin(), in.by_work.end(), 0);
  std::stable_sort(in.by_work.begin(), in.by_work.end(),
                   [&](int a, int b) { return in.metrics[a].work > in.metrics[b].work; });
  return in;
}

}  // namespace ktune::cost_model::internal
