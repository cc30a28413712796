#include "cost_model/internal/pipeline_facts.h"

#include <map>

#include "cost_model/internal/isl_util.h"
#include "scheduler/isl_context.h"

namespace ktune::cost_model::internal {
namespace {

std::string point_text(const std::vector<int64_t>& p) {
  std::string s = "{ S[";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
  return s + "] }";
}

// The single point `map` sends `p` to, or nullopt when the image is not one point.
std::optional<std::vector<int64_t>> image_point(isl::ctx ctx, const isl::map& map, const std::vector<int64_t>& p) {
  const isl::set image = isl::set(ctx, point_text(p)).apply(map);
  const auto box = bounding_box(image);
  if (!box || box->points() != 1) return std::nullopt;
  return box->lo;
}

// Linear coefficients of `access` at the middle of the stage's box (see UseFacts::coeff).
std::vector<std::vector<int64_t>> coefficients(isl::ctx ctx, const std::string& access, const StageFacts& st) {
  std::vector<std::vector<int64_t>> coeff;
  try {
    const isl::map map(ctx, access);
    std::vector<int64_t> mid(st.lo.size());
    for (size_t d = 0; d < mid.size(); ++d) mid[d] = st.lo[d] + st.extent[d] / 2;
    const auto base = image_point(ctx, map, mid);
    if (!base) return {};
    coeff.assign(base->size(), std::vector<int64_t>(mid.size(), 0));
    for (size_t d = 0; d < mid.size(); ++d) {
      std::vector<int64_t> next = mid;
      ++next[d];
      const auto moved = image_point(ctx, map, next);
      if (!moved) return {};
      for (size_t b = 0; b < base->size(); ++b) coeff[b][d] = (*moved)[b] - (*base)[b];
    }
  } catch (const isl::exception&) {
    return {};
  }
  return coeff;
}

// A buffer per Func, then the inputs, in order of first use.
void add_buffers(const scheduler::Analysis& analysis, PipelineFacts& facts) {
  for (int f = 0; f < static_cast<int>(analysis.funcs.size()); ++f) {
    facts.buffers.push_back({analysis.funcs[f].name, f, {}, {}, analysis.funcs[f].element_bytes});
  }
  for (const scheduler::FuncAnalysis& fa : analysis.funcs) {
    for (const scheduler::StageAnalysis& sa : fa.stages) {
      for (const scheduler::ProducerUse& u : sa.uses) {
        if (u.func < 0 && facts.input_buffer(u.name) < 0) facts.buffers.push_back({u.name, -1, {}, {}, u.element_bytes});
      }
    }
  }
}

// The stage's box from its isl domain, or from the analysis's loop extents (starting at
// 0) where isl gives none. Returns the domain (null when isl failed).
isl::set set_stage_box(scheduler::IslContext& isl, const scheduler::StageAnalysis& sa, StageFacts& st) {
  const int n = static_cast<int>(sa.loops.size());
  isl::set domain;
  try {
    isl.reset_operations();
    domain = isl::set(isl.ctx(), sa.domain);
    if (const auto box = bounding_box(domain)) {
      st.lo = box->lo;
      st.extent = box->extent;
    }
  } catch (const isl::exception&) {
  }
  if (st.extent.size() != static_cast<size_t>(n)) {
    st.lo.assign(n, 0);
    st.extent.assign(n, 1);
    for (int l = 0; l < n; ++l) st.extent[st.loop_dim[l]] = sa.loops[l].extent;
  }
  return domain;
}

// The facts of use `u` of a stage; an affine read of an input adds its image of the
// stage's domain to that input's region.
UseFacts use_facts(isl::ctx ctx, const scheduler::StageAnalysis& sa, size_t u, const isl::set& domain,
                   const StageFacts& st, const PipelineFacts& facts, std::map<int, isl::set>& input_regions) {
  const scheduler::ProducerUse& pu = sa.uses[u];
  UseFacts use;
  use.use = static_cast<int>(u);
  use.buffer = pu.func >= 0 ? pu.func : facts.input_buffer(pu.name);
  use.affine = pu.affine;
  if (!pu.affine) return use;
  use.coeff = coefficients(ctx, pu.access, st);
  if (pu.func < 0 && !domain.is_null()) {
    try {
      const isl::set image = domain.apply(isl::map(ctx, pu.access));
      auto it = input_regions.find(use.buffer);
      if (it == input_regions.end()) {
        input_regions.emplace(use.buffer, image);
      } else {
        it->second = it->second.unite(image);
      }
    } catch (const isl::exception&) {
    }
  }
  return use;
}

// The facts of one stage of Func `f`: its dims (loop l is dim n-1-l), box, write and uses.
StageFacts stage_facts(scheduler::IslContext& isl, int f, const scheduler::StageAnalysis& sa, PipelineFacts& facts,
                       std::map<int, isl::set>& input_regions) {
  StageFacts st;
  st.func = f;
  st.stage = sa.stage;
  st.id = static_cast<int>(facts.stage_ids.size());
  st.arith_ops = sa.arith_ops;
  const int n = static_cast<int>(sa.loops.size());
  for (int l = 0; l < n; ++l) st.loop_dim.push_back(n - 1 - l);
  const isl::set domain = set_stage_box(isl, sa, st);
  st.write_coeff = coefficients(isl.ctx(), sa.write, st);
  for (size_t u = 0; u < sa.uses.size(); ++u) {
    st.uses.push_back(use_facts(isl.ctx(), sa, u, domain, st, facts, input_regions));
  }
  return st;
}

// Func regions: the image of the pure definition's iterations under its store, or the
// analysis's extents (from 0) where isl gives none.
void set_func_regions(scheduler::IslContext& isl, const scheduler::Analysis& analysis, PipelineFacts& facts) {
  isl::ctx ctx = isl.ctx();
  for (int f = 0; f < static_cast<int>(analysis.funcs.size()); ++f) {
    const scheduler::StageAnalysis& sa = analysis.funcs[f].stages.front();
    try {
      isl.reset_operations();
      const isl::set region = isl::set(ctx, sa.domain).apply(isl::map(ctx, sa.write));
      if (const auto box = bounding_box(region)) {
        facts.buffers[f].lo = box->lo;
        facts.buffers[f].extent = box->extent;
      }
    } catch (const isl::exception&) {
    }
    if (facts.buffers[f].extent.empty()) {
      facts.buffers[f].lo.assign(analysis.funcs[f].extents.size(), 0);
      facts.buffers[f].extent = analysis.funcs[f].extents;
    }
  }
}

// Input regions: the box of the union of the images the stages read.
void set_input_regions(scheduler::IslContext& isl, std::map<int, isl::set>& input_regions, PipelineFacts& facts) {
  for (auto& [b, region] : input_regions) {
    try {
      isl.reset_operations();
      if (const auto box = bounding_box(region.coalesce())) {
        facts.buffers[b].lo = box->lo;
        facts.buffers[b].extent = box->extent;
      }
    } catch (const isl::exception&) {
    }
  }
}

}  // namespace

int64_t BufferFacts::elements() const {
  if (extent.empty()) return 0;
  int64_t n = 1;
  for (int64_t e : extent) n *= e;
  return n;
}

int64_t StageFacts::points() const {
  int64_t n = 1;
  for (int64_t e : extent) n *= e;
  return n;
}

int PipelineFacts::input_buffer(const std::string& name) const {
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b].func < 0 && buffers[b].name == name) return static_cast<int>(b);
  }
  return -1;
}

int64_t linear_step(const std::vector<int64_t>& delta, const std::vector<int64_t>& extents) {
  int64_t step = 0;
  int64_t stride = 1;
  for (size_t b = 0; b < delta.size(); ++b) {
    step += delta[b] * stride;
    stride *= b < extents.size() ? extents[b] : 1;
  }
  return step;
}

int64_t linear_step(const std::vector<int64_t>& delta, const std::vector<int64_t>& extents,
                    const std::vector<int>& order) {
  if (order.size() != delta.size()) return linear_step(delta, extents);
  std::vector<int64_t> d, e;
  for (int b : order) {
    d.push_back(delta[b]);
    e.push_back(b < static_cast<int>(extents.size()) ? extents[b] : 1);
  }
  return linear_step(d, e);
}

PipelineFacts build_pipeline_facts(const scheduler::Analysis& analysis) {
  scheduler::IslContext isl(20'000'000);
  PipelineFacts facts;
  add_buffers(analysis, facts);
  std::map<int, isl::set> input_regions;  // buffer -> union of affine images
  const int nfuncs = static_cast<int>(analysis.funcs.size());
  facts.stages.resize(nfuncs);
  for (int f = 0; f < nfuncs; ++f) {
    for (const scheduler::StageAnalysis& sa : analysis.funcs[f].stages) {
      StageFacts st = stage_facts(isl, f, sa, facts, input_regions);
      facts.stage_ids.emplace_back(f, sa.stage);
      facts.stages[f].push_back(std::move(st));
    }
  }
  set_func_regions(isl, analysis, facts);
  set_input_regions(isl, input_regions, facts);
  return facts;
}

}  // namespace ktune::cost_model::internal
