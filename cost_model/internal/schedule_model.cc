// Entry point: build_schedule_model() walks the Funcs from the outputs back to the inputs
// (a compute_at producer needs its host's loops), building each stage's loop nest
// (build_loops), its accesses through inlined Funcs (collect_accesses) and the footprints
// of every loop level (add_footprints).
#include "cost_model/internal/schedule_model.h"

#include <algorithm>
#include <map>

namespace ktune::cost_model::internal {
namespace {

using scheduler::ComputeLocation;
using Matrix = std::vector<std::vector<int64_t>>;

// a (r x m) times b (m x c); empty when either is empty or the shapes disagree.
Matrix multiply(const Matrix& a, const Matrix& b) {
  if (a.empty() || b.empty() || a[0].size() != b.size()) return {};
  Matrix out(a.size(), std::vector<int64_t>(b[0].size(), 0));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < b.size(); ++k) {
      if (a[i][k] == 0) continue;
      for (size_t j = 0; j < b[0].size(); ++j) out[i][j] += a[i][k] * b[k][j];
    }
  }
  return out;
}

Matrix transpose(const Matrix& a) {
  if (a.empty()) return {};
  Matrix out(a[0].size(), std::vector<int64_t>(a.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < a[0].size(); ++j) out[j][i] = a[i][j];
  }
  return out;
}

Matrix identity(size_t n) {
  Matrix m(n, std::vector<int64_t>(n, 0));
  for (size_t i = 0; i < n; ++i) m[i][i] = 1;
  return m;
}

const scheduler::StageSchedule* find_stage(const scheduler::FuncSchedule* fs, int stage) {
  if (!fs) return nullptr;
  for (const scheduler::StageSchedule& st : fs->stages) {
    if (st.stage == stage) return &st;
  }
  return nullptr;
}

int position(const std::vector<LoopModel>& loops, const std::string& name) {
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// The loops of a stage after the schedule's splits and order, with the flags set.
void build_loops(const scheduler::StageAnalysis& sa, const StageFacts& st, const scheduler::StageSchedule* sched,
                 StageModel& sm, ScheduleModel& model) {
  for (size_t l = 0; l < sa.loops.size(); ++l) {
    LoopModel loop;
    loop.name = sa.loops[l].name;
    loop.dim = st.loop_dim[l];
    loop.extent = sm.dim_extent[loop.dim];
    loop.reduction = sa.loops[l].is_reduction;
    sm.loops.push_back(loop);
  }
  if (!sched) return;
  for (const scheduler::LoopSplit& split : sched->splits) {
    const int p = position(sm.loops, split.loop);
    if (p < 0 || split.factor < 2) {
      ++model.unknown_loops;
      continue;
    }
    LoopModel inner = sm.loops[p];
    LoopModel outer = sm.loops[p];
    inner.name = split.inner;
    inner.extent = split.factor;
    outer.name = split.outer;
    outer.extent = (sm.loops[p].extent + split.factor - 1) / split.factor;
    outer.stride = sm.loops[p].stride * split.factor;
    sm.loops[p] = inner;
    sm.loops.insert(sm.loops.begin() + p + 1, outer);
  }
  if (!sched->order.empty()) {
    std::vector<LoopModel> ordered;
    for (const std::string& name : sched->order) {
      const int p = position(sm.loops, name);
      if (p >= 0 && position(ordered, name) < 0) ordered.push_back(sm.loops[p]);
    }
    if (ordered.size() == sm.loops.size()) {
      sm.loops = std::move(ordered);
    } else {
      ++model.unknown_loops;
    }
  }
  auto mark = [&](const std::string& name, bool LoopModel::*flag) {
    const int p = position(sm.loops, name);
    if (p < 0) {
      ++model.unknown_loops;
      return;
    }
    sm.loops[p].*flag = true;
  };
  for (const std::string& name : sched->parallel) mark(name, &LoopModel::parallel);
  if (!sched->vectorize.empty()) mark(sched->vectorize, &LoopModel::vectorized);
  for (const std::string& name : sched->unroll) mark(name, &LoopModel::unrolled);
  if (sched->rfactor) {
    // The intermediate runs the chosen reduction piece as its pure variable u, in
    // parallel or vectorized.
    sm.rfactor = true;
    ++model.rfactor_stages;
    mark(sched->rfactor->loop, sched->rfactor->vectorize_u ? &LoopModel::vectorized : &LoopModel::parallel);
  }
}

// One read or the store of a stage, after following inlined Funcs.
struct Leaf {
  int buffer = 0;    // buffer touched
  AccessPath path;   // see FootprintCache
  Matrix coeff;      // buffer index per step of the stage's isl dimensions; empty if unknown
};

// Follows the uses of (func, stage 0 when inlined) into inlined Funcs; adds their
// arithmetic to `ops`. `to_stage` maps the root stage's dimensions to this stage's.
void collect_leaves(const PipelineFacts& facts, const std::vector<bool>& inlined, int func, int stage,
                    const AccessPath& prefix, const Matrix& to_stage, double& ops, std::vector<Leaf>& leaves,
                    int depth) {
  const StageFacts& st = facts.stages[func][stage];
  for (const UseFacts& use : st.uses) {
    const Matrix full = multiply(use.coeff, to_stage);
    AccessPath path = prefix;
    path.push_back(use.use);
    const int producer = facts.buffers[use.buffer].func;
    if (producer >= 0 && producer != func && inlined[producer] && depth < 16) {
      const StageFacts& pst = facts.stages[producer].front();
      ops += pst.arith_ops;
      path.push_back(producer);
      // Buffer coordinates of the inlined Func back to its pure loops: the store is a
      // permutation, so its transpose inverts it.
      const Matrix next = multiply(transpose(pst.write_coeff), full);
      collect_leaves(facts, inlined, producer, 0, path, next, ops, leaves, depth + 1);
      continue;
    }
    leaves.push_back({use.buffer, std::move(path), full});
  }
}

int64_t step_of(const Matrix& coeff, const LoopModel& loop, const BufferFacts& buffer) {
  if (coeff.empty()) return kUnknownStride;
  std::vector<int64_t> delta(coeff.size());
  for (size_t b = 0; b < coeff.size(); ++b) delta[b] = coeff[b][loop.dim] * loop.stride;
  return linear_step(delta, buffer.extent);
}

void collect_accesses(const PipelineFacts& facts, const std::vector<bool>& inlined, FootprintCache& cache,
                      StageModel& sm) {
  const StageFacts& st = facts.stages[sm.func][sm.stage];
  std::vector<Leaf> leaves;
  double ops = st.arith_ops;
  collect_leaves(facts, inlined, sm.func, sm.stage, {}, identity(st.extent.size()), ops, leaves, 0);
  sm.ops = ops;
  leaves.push_back({sm.func, {-1}, st.write_coeff});
  std::map<int, std::vector<const Leaf*>> by_buffer;
  for (const Leaf& leaf : leaves) by_buffer[leaf.buffer].push_back(&leaf);
  const int vec = [&] {
    for (size_t i = 0; i < sm.loops.size(); ++i) {
      if (sm.loops[i].vectorized) return static_cast<int>(i);
    }
    return -1;
  }();
  for (const auto& [buffer, group_leaves] : by_buffer) {
    AccessGroupModel g;
    g.buffer = buffer;
    for (const Leaf* leaf : group_leaves) {
      g.paths.push_back(leaf->path);
      const bool is_store = leaf->path.size() == 1 && leaf->path[0] < 0;
      g.store |= is_store;
      if (!is_store) ++g.loads;
      if (!sm.loops.empty()) g.inner_steps.push_back(step_of(leaf->coeff, sm.loops[0], facts.buffers[buffer]));
      if (vec >= 0) g.vector_steps.push_back(step_of(leaf->coeff, sm.loops[vec], facts.buffers[buffer]));
    }
    sm.loads += g.loads;
    g.group = cache.group(sm.id, buffer, g.paths);
    sm.groups.push_back(std::move(g));
  }
}

// Sorts pieces by stride and merges those that tile a contiguous range.
void normalize(std::vector<TilePiece>& pieces, int64_t dim_extent) {
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(), [](const TilePiece& p) { return p.count <= 1; }),
               pieces.end());
  std::sort(pieces.begin(), pieces.end(),
            [](const TilePiece& a, const TilePiece& b) { return a.stride != b.stride ? a.stride < b.stride : a.count < b.count; });
  std::vector<TilePiece> merged;
  for (const TilePiece& p : pieces) {
    if (!merged.empty() && p.stride == merged.back().stride * merged.back().count) {
      merged.back().count *= p.count;
    } else {
      merged.push_back(p);
    }
  }
  // A contiguous range never covers more than the realization's iterations.
  if (merged.size() == 1 && merged[0].stride == 1) merged[0].count = std::min(merged[0].count, dim_extent);
  pieces = std::move(merged);
}

void add_footprints(FootprintCache& cache, StageModel& sm) {
  std::vector<TileSpec> tiles(sm.loops.size() + 1);
  tiles[0].dims.resize(sm.dim_extent.size());
  for (size_t k = 1; k < tiles.size(); ++k) {
    tiles[k] = tiles[k - 1];
    const LoopModel& loop = sm.loops[k - 1];
    auto& pieces = tiles[k].dims[loop.dim];
    pieces.push_back({loop.stride, loop.extent});
    normalize(pieces, sm.dim_extent[loop.dim]);
  }
  for (AccessGroupModel& g : sm.groups) {
    g.levels.reserve(tiles.size());
    for (const TileSpec& t : tiles) g.levels.push_back(&cache.footprint(g.group, t));
  }
}

// A producer computed at loop p of this stage is recomputed into the same small buffer on
// every iteration of p: beyond level p its working set stays one realization.
void reuse_producer_buffers(const scheduler::Analysis& analysis,
                            const std::vector<const scheduler::FuncSchedule*>& sched, StageModel& sm) {
  for (AccessGroupModel& g : sm.groups) {
    if (g.buffer >= static_cast<int>(sched.size()) || g.buffer == sm.func || !sched[g.buffer]) continue;
    const ComputeLocation& at = sched[g.buffer]->compute;
    if (at.kind != ComputeLocation::Kind::kAt || analysis.index_of(at.consumer) != sm.func) continue;
    const int host_stage = std::min(at.consumer_stage, static_cast<int>(analysis.funcs[sm.func].stages.size()) - 1);
    if (sm.stage != host_stage) continue;
    const int p = position(sm.loops, at.loop);
    for (int k = p + 1; p >= 0 && k < static_cast<int>(g.levels.size()); ++k) g.levels[k] = g.levels[p];
  }
}

}  // namespace

int64_t StageModel::inner_points(int level) const {
  int64_t n = 1;
  for (int q = 0; q < level && q < depth(); ++q) n *= loops[q].extent;
  return n;
}

int64_t StageModel::executions(int level) const {
  int64_t n = 1;
  for (int q = level; q < depth(); ++q) n *= loops[q].extent;
  return n;
}

int64_t FuncModel::region_elements() const {
  int64_t n = 1;
  for (int64_t e : region) n *= e;
  return n;
}

ScheduleModel build_schedule_model(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                   FootprintCache& cache, const scheduler::Schedule& schedule) {
  ScheduleModel model;
  const int n = static_cast<int>(analysis.funcs.size());
  model.funcs.resize(n);
  std::vector<const scheduler::FuncSchedule*> sched(n, nullptr);
  std::vector<bool> inlined(n, false);
  for (int f = 0; f < n; ++f) {
    const scheduler::FuncAnalysis& fa = analysis.funcs[f];
    sched[f] = schedule.find(fa.name);
    // Halide's default for an unlisted Func is inline; outputs and Funcs with updates
    // cannot be inlined.
    ComputeLocation::Kind kind = sched[f] ? sched[f]->compute.kind : ComputeLocation::Kind::kInline;
    if (fa.is_output || fa.has_updates()) {
      if (kind == ComputeLocation::Kind::kInline) kind = ComputeLocation::Kind::kRoot;
    }
    model.funcs[f].kind = kind;
    inlined[f] = kind == ComputeLocation::Kind::kInline;
  }

  for (int f = n - 1; f >= 0; --f) {
    FuncModel& fm = model.funcs[f];
    if (inlined[f]) {
      fm.realizations = 0;
      continue;
    }
    fm.region = facts.buffers[f].extent;
    int64_t outer_tasks = 1;
    if (fm.kind == ComputeLocation::Kind::kAt) {
      const ComputeLocation& at = sched[f]->compute;
      const int host_func = analysis.index_of(at.consumer);
      int host = -1;
      for (size_t i = 0; i < model.stages.size(); ++i) {
        const StageModel& s = model.stages[i];
        if (s.func == host_func && (host < 0 || s.stage <= at.consumer_stage)) host = static_cast<int>(i);
      }
      const int p = host < 0 ? -1 : position(model.stages[host].loops, at.loop);
      if (p < 0) {
        ++model.unknown_loops;
        fm.kind = ComputeLocation::Kind::kRoot;
      } else {
        const StageModel& hs = model.stages[host];
        fm.host_stage = host;
        fm.host_level = p;
        fm.realizations = hs.realizations * hs.executions(p);
        for (const AccessGroupModel& g : hs.groups) {
          if (g.buffer != f || g.levels[p]->box.extent.size() != fm.region.size()) continue;
          for (size_t a = 0; a < fm.region.size(); ++a) fm.region[a] = std::min(fm.region[a], g.levels[p]->box.extent[a]);
        }
        // Inside (or at) the host's parallel loop, every task computes its own part.
        bool inside_parallel = false;
        for (int q = p; q < hs.depth(); ++q) inside_parallel |= hs.loops[q].parallel;
        outer_tasks = hs.outer_tasks * (inside_parallel ? hs.tasks : 1);
      }
    }
    const scheduler::FuncAnalysis& fa = analysis.funcs[f];
    for (size_t s = 0; s < fa.stages.size(); ++s) {
      const scheduler::StageAnalysis& sa = fa.stages[s];
      const StageFacts& st = facts.stages[f][s];
      StageModel sm;
      sm.func = f;
      sm.stage = static_cast<int>(s);
      sm.id = st.id;
      sm.realizations = fm.realizations;
      sm.outer_tasks = outer_tasks;
      sm.dim_extent = st.extent;
      if (fm.kind == ComputeLocation::Kind::kAt) {
        // Pure loops cover one realization's region; reduction loops run in full.
        for (size_t l = 0; l < sa.loops.size(); ++l) {
          if (sa.loops[l].is_reduction) continue;
          for (size_t a = 0; a < fa.args.size() && a < fm.region.size(); ++a) {
            if (fa.args[a] == sa.loops[l].name) sm.dim_extent[st.loop_dim[l]] = std::min(sm.dim_extent[st.loop_dim[l]], fm.region[a]);
          }
        }
      }
      build_loops(sa, st, find_stage(sched[f], sm.stage), sm, model);
      for (int64_t e : sm.dim_extent) sm.points *= e;
      for (const LoopModel& l : sm.loops) {
        sm.iterations *= l.extent;
        if (l.parallel) sm.tasks *= l.extent;
        if (l.vectorized) sm.vector_width = l.extent;
      }
      collect_accesses(facts, inlined, cache, sm);
      add_footprints(cache, sm);
      reuse_producer_buffers(analysis, sched, sm);
      model.stages.push_back(std::move(sm));
    }
  }
  return model;
}

}  // namespace ktune::cost_model::internal
