// AccessFeatures: how each buffer is read (bytes, distinct bytes and lines, reuse, the
// address step along the innermost, vectorized and innermost reduction loops), for the
// most-read buffers.
#include <algorithm>
#include <cstdlib>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {
namespace {

float stride_value(int64_t step) {
  return step == internal::kUnknownStride ? AccessFeatures::kUnknownStride : static_cast<float>(std::llabs(step));
}

// The first read path of a group (paths other than the stage's own store).
int first_read(const internal::AccessGroupModel& g) {
  for (size_t p = 0; p < g.paths.size(); ++p) {
    if (!(g.paths[p].size() == 1 && g.paths[p][0] < 0)) return static_cast<int>(p);
  }
  return -1;
}

}  // namespace

std::vector<AccessFeatures> AccessFeatures::compute(const internal::FeatureInputs& in, int count) {
  using Kind = scheduler::ComputeLocation::Kind;
  const size_t nbuf = in.facts.buffers.size();
  std::vector<AccessFeatures> all(nbuf);
  std::vector<double> loaded(nbuf, 0), heaviest(nbuf, -1), footprint(nbuf, 0), lines(nbuf, 0);
  for (size_t i = 0; i < in.model.stages.size(); ++i) {
    const internal::StageModel& sm = in.model.stages[i];
    const internal::StageMetrics& m = in.metrics[i];
    for (const internal::AccessGroupModel& g : sm.groups) {
      const int read = first_read(g);
      if (read < 0) continue;
      AccessFeatures& f = all[g.buffer];
      const int64_t element_bytes = in.facts.buffers[g.buffer].element_bytes;
      const double bytes = m.points * g.loads * element_bytes;
      loaded[g.buffer] += bytes;
      const double r = static_cast<double>(sm.realizations);
      footprint[g.buffer] += r * static_cast<double>(g.levels.back()->elements * element_bytes);
      lines[g.buffer] += r * static_cast<double>(g.levels.back()->lines);
      f.readers += 1;
      if (bytes > heaviest[g.buffer]) {
        heaviest[g.buffer] = bytes;
        f.inner_stride = g.inner_steps.empty() ? 0.f : stride_value(g.inner_steps[read]);
        f.vector_stride = g.vector_steps.empty() ? -1.f : stride_value(g.vector_steps[read]);
        f.reduction_stride = g.reduction_steps.empty() ? -1.f : stride_value(g.reduction_steps[read]);
        f.run_bytes = static_cast<float>(internal::run_bytes(g, element_bytes));
      }
    }
  }
  std::vector<int> order;
  for (size_t b = 0; b < nbuf; ++b) {
    AccessFeatures& f = all[b];
    if (f.readers == 0) continue;
    const internal::BufferFacts& bf = in.facts.buffers[b];
    f.loaded_bytes = static_cast<float>(loaded[b]);
    f.footprint_bytes = static_cast<float>(footprint[b]);
    f.footprint_lines = static_cast<float>(lines[b]);
    f.reuse = footprint[b] > 0 ? static_cast<float>(loaded[b] / footprint[b]) : 0.f;
    f.is_input = bf.func < 0;
    f.realizations = 1;
    f.alloc_bytes = static_cast<float>(bf.elements() * bf.element_bytes);
    if (bf.func >= 0) {
      const internal::FuncModel& fm = in.model.funcs[bf.func];
      f.compute_at = fm.kind == Kind::kAt;
      f.realizations = static_cast<float>(fm.realizations);
      f.alloc_bytes = static_cast<float>(fm.region_elements() * bf.element_bytes);
    }
    order.push_back(static_cast<int>(b));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return loaded[a] > loaded[b]; });
  std::vector<AccessFeatures> top;
  for (int b : order) {
    if (static_cast<int>(top.size()) == count) break;
    top.push_back(all[b]);
  }
  top.resize(count);
  return top;
}

std::vector<std::string> AccessFeatures::names() {
  return {"loaded_bytes",  "footprint_bytes", "footprint_lines", "reuse",         "inner_stride", "vector_stride",
          "reduction_stride", "is_input",   "compute_at",      "realizations",  "alloc_bytes",  "readers",
          "run_bytes"};
}

void AccessFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {loaded_bytes, footprint_bytes, footprint_lines, reuse, inner_stride, vector_stride,
                         reduction_stride, is_input, compute_at, realizations, alloc_bytes, readers, run_bytes});
}

}  // namespace ktune::cost_model
