// StageFeatures: the loop nest and working sets of the stages with the most work.
#include <algorithm>
#include <cmath>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {
namespace {

LoopFeatures loop_features(const internal::FeatureInputs& in, const internal::StageModel& sm,
                           const internal::StageMetrics& m) {
  const scheduler::TargetInfo& t = in.analysis.target;
  const double cores = std::max(1, t.cores);
  LoopFeatures f;
  f.depth = static_cast<float>(sm.depth());
  const double tasks = static_cast<double>(m.tasks);
  f.tasks = static_cast<float>(tasks);
  f.tasks_per_core = static_cast<float>(tasks / cores);
  f.parallel_efficiency = static_cast<float>(m.speedup / cores);
  f.points_per_task = static_cast<float>(m.points / tasks);
  f.ops_per_task = static_cast<float>(m.ops / tasks);
  f.vector_width = static_cast<float>(sm.vector_width);
  f.vector_lanes_ratio = static_cast<float>(static_cast<double>(sm.vector_width) / std::max(1, t.vector_lanes));
  f.tail_waste = m.iterations > 0 ? static_cast<float>(1.0 - m.points / m.iterations) : 0.f;
  f.unrolled_iterations = 1;
  f.reduction_level = -1;
  for (int q = 0; q < sm.depth(); ++q) {
    const internal::LoopModel& l = sm.loops[q];
    if (l.unrolled) f.unrolled_iterations *= static_cast<float>(l.extent);
    if (l.reduction && f.reduction_level < 0) f.reduction_level = static_cast<float>(q);
  }
  if (!sm.loops.empty()) {
    f.vector_innermost = sm.loops[0].vectorized;
    f.innermost_extent = static_cast<float>(sm.loops[0].extent);
    f.innermost_reduction = sm.loops[0].reduction;
  }
  if (f.reduction_level >= 0) {
    double tile = 1;
    for (int q = 0; q < static_cast<int>(f.reduction_level); ++q) {
      if (!sm.loops[q].reduction) tile *= static_cast<double>(sm.loops[q].extent);
    }
    f.register_tile = static_cast<float>(tile);
  }
  f.loop_iterations = static_cast<float>(m.loop_overhead);
  f.realizations = static_cast<float>(sm.realizations);
  f.rfactor = sm.rfactor;
  for (const internal::AccessGroupModel& g : sm.groups) {
    if (g.loads == 0) continue;
    const float run = static_cast<float>(internal::run_bytes(g, in.facts.buffers[g.buffer].element_bytes));
    f.min_run_bytes = f.min_run_bytes == 0 ? run : std::min(f.min_run_bytes, run);
  }
  return f;
}

WorkingSetFeatures ws_features(const internal::StageMetrics& m) {
  WorkingSetFeatures f;
  const int depth = static_cast<int>(m.ws_bytes.size()) - 1;
  for (int k = 1; k <= WorkingSetFeatures::kLevels; ++k) {
    f.bytes[k - 1] = static_cast<float>(m.ws_bytes[std::min(k, depth)]);
  }
  f.full_bytes = static_cast<float>(m.ws_bytes.back());
  f.l1_level = static_cast<float>(m.l1_level);
  f.l2_level = static_cast<float>(m.l2_level);
  f.llc_level = static_cast<float>(m.llc_level);
  return f;
}

}  // namespace

StageFeatures StageFeatures::compute(const internal::FeatureInputs& in, int rank) {
  StageFeatures f;
  if (rank < 0 || rank >= static_cast<int>(in.by_work.size())) return f;
  const int i = in.by_work[rank];
  f.loop = loop_features(in, in.model.stages[i], in.metrics[i]);
  f.ws = ws_features(in.metrics[i]);
  return f;
}

std::vector<std::string> StageFeatures::names() {
  std::vector<std::string> n;
  for (const std::string& s : LoopFeatures::names()) n.push_back("loop." + s);
  for (const std::string& s : WorkingSetFeatures::names()) n.push_back("ws." + s);
  return n;
}

void StageFeatures::append_to(std::vector<float>& out) const {
  loop.append_to(out);
  ws.append_to(out);
}

}  // namespace ktune::cost_model
