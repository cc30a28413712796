#include "cost_model/internal/stage_accesses.h"

#include <algorithm>
#include <map>

namespace ktune::cost_model::internal {
namespace {

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

// One read or the store of a stage, after following inlined Funcs.
struct Leaf {
  int buffer = 0;    // buffer touched
  AccessPath path;   // see FootprintCache
  Matrix coeff;      // buffer index per step of the stage's isl dimensions; empty if unknown
};

// Inlined Funcs are expanded until a stage has this many reads: past it, a read of an
// inlined Func counts as one read of it. Every path through a DAG of inlined stencils is a
// read of its own (a pyramid inlined level into level has exponentially many), and such a
// schedule is slow anyway.
constexpr size_t kMaxExpandedLeaves = 4096;

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
    if (producer >= 0 && producer != func && inlined[producer] && depth < 16 && leaves.size() < kMaxExpandedLeaves) {
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

// The change of the buffer's index per iteration of `loop`; empty when unknown.
std::vector<int64_t> delta_of(const Matrix& coeff, const LoopModel& loop) {
  std::vector<int64_t> delta(coeff.size());
  for (size_t b = 0; b < coeff.size(); ++b) delta[b] = coeff[b][loop.dim] * loop.stride;
  return delta;
}

std::vector<int64_t> steps_of(const std::vector<std::vector<int64_t>>& deltas, const std::vector<int64_t>& extents,
                              const std::vector<int>& order) {
  std::vector<int64_t> steps;
  for (const std::vector<int64_t>& delta : deltas) {
    steps.push_back(delta.empty() ? kUnknownStride : linear_step(delta, extents, order));
  }
  return steps;
}

// The extents of one realization of `buffer`: a Func's region, the part of an input a pack
// at a loop copies per iteration of it, else the whole buffer.
std::vector<int64_t> realized_extents(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                      const scheduler::Schedule& schedule, const ScheduleModel& model, int buffer) {
  const BufferFacts& bf = facts.buffers[buffer];
  std::vector<int64_t> region = bf.func >= 0 ? model.funcs[bf.func].region : std::vector<int64_t>{};
  for (const scheduler::InputPack& pack : schedule.packs) {
    if (bf.func < 0 && facts.input_buffer(pack.input) == buffer && pack.compute.kind == scheduler::ComputeLocation::Kind::kAt) {
      region = pack_region(analysis, model, pack, buffer);
    }
  }
  if (region.size() != bf.extent.size()) return bf.extent;
  for (size_t d = 0; d < region.size(); ++d) region[d] = std::clamp<int64_t>(region[d], 1, bf.extent[d]);
  return region;
}

// The extent of what `reader` (computed at a loop of its host) reads through `group` over
// the realizations inside one iteration of its host's loop `level`: all of them where the
// reader is computed inside that loop (a matmul's accumulator per tile of the rows a pack is
// made for), else one realization's.
const std::vector<int64_t>& reader_part(const StageModel& reader, const AccessGroupModel& group, int level) {
  const int q = level - reader.host_level;
  if (q >= 0 && q < static_cast<int>(reader.host_extents.size())) {
    const auto part = reader.host_extents[q].find(group.buffer);
    if (part != reader.host_extents[q].end()) return part->second;
  }
  return group.levels.back()->box.extent;
}

}  // namespace

std::vector<int64_t> pack_region(const scheduler::Analysis& analysis, const ScheduleModel& model,
                                 const scheduler::InputPack& pack, int buffer) {
  const int host_func = analysis.index_of(pack.compute.consumer);
  for (size_t h = 0; h < model.stages.size(); ++h) {
    const StageModel& host = model.stages[h];
    if (host.func != host_func || host.stage != pack.compute.consumer_stage) continue;
    const int p = position(host.loops, pack.compute.loop);
    if (p < 0) return {};
    for (const AccessGroupModel& g : host.groups) {
      if (g.buffer == buffer && static_cast<size_t>(p) < g.levels.size()) return g.levels[p]->box.extent;
    }
    std::vector<int64_t> region;
    for (const StageModel& reader : model.stages) {
      if (reader.host_stage != static_cast<int>(h)) continue;
      for (const AccessGroupModel& g : reader.groups) {
        if (g.buffer != buffer || g.levels.empty()) continue;
        const std::vector<int64_t>& part = reader_part(reader, g, p);
        region.resize(part.size(), 0);
        for (size_t d = 0; d < part.size(); ++d) region[d] = std::max(region[d], part[d]);
      }
    }
    return region;
  }
  return {};
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
  const int reduction = [&] {
    for (size_t i = 0; i < sm.loops.size(); ++i) {
      if (sm.loops[i].reduction && !sm.loops[i].unrolled && !sm.loops[i].vectorized) return static_cast<int>(i);
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
      if (!sm.loops.empty()) g.inner_deltas.push_back(delta_of(leaf->coeff, sm.loops[0]));
      if (vec >= 0) g.vector_deltas.push_back(delta_of(leaf->coeff, sm.loops[vec]));
      if (reduction >= 0) g.reduction_deltas.push_back(delta_of(leaf->coeff, sm.loops[reduction]));
    }
    sm.loads += g.loads;
    g.group = cache.group(sm.id, buffer, g.paths);
    sm.groups.push_back(std::move(g));
  }
}

int position(const std::vector<LoopModel>& loops, const std::string& name) {
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void set_address_steps(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                       const scheduler::Schedule& schedule, ScheduleModel& model) {
  std::map<int, std::vector<int64_t>> extents;
  for (StageModel& sm : model.stages) {
    for (AccessGroupModel& g : sm.groups) {
      auto it = extents.find(g.buffer);
      if (it == extents.end()) it = extents.emplace(g.buffer, realized_extents(analysis, facts, schedule, model, g.buffer)).first;
      const auto stored = model.storage_orders.find(g.buffer);
      const std::vector<int> order = stored == model.storage_orders.end() ? std::vector<int>{} : stored->second;
      g.inner_steps = steps_of(g.inner_deltas, it->second, order);
      g.vector_steps = steps_of(g.vector_deltas, it->second, order);
      g.reduction_steps = steps_of(g.reduction_deltas, it->second, order);
    }
  }
}

}  // namespace ktune::cost_model::internal
