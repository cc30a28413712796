#include "cost_model/internal/stage_accesses.h"

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

int64_t step_of(const Matrix& coeff, const LoopModel& loop, const BufferFacts& buffer, const std::vector<int>& order) {
  if (coeff.empty()) return kUnknownStride;
  std::vector<int64_t> delta(coeff.size());
  for (size_t b = 0; b < coeff.size(); ++b) delta[b] = coeff[b][loop.dim] * loop.stride;
  return linear_step(delta, buffer.extent, order);
}

}  // namespace

void collect_accesses(const PipelineFacts& facts, const std::vector<bool>& inlined,
                      const std::map<int, std::vector<int>>& storage_orders, FootprintCache& cache, StageModel& sm) {
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
      const auto packed = storage_orders.find(buffer);
      const std::vector<int> order = packed == storage_orders.end() ? std::vector<int>{} : packed->second;
      if (!sm.loops.empty()) g.inner_steps.push_back(step_of(leaf->coeff, sm.loops[0], facts.buffers[buffer], order));
      if (vec >= 0) g.vector_steps.push_back(step_of(leaf->coeff, sm.loops[vec], facts.buffers[buffer], order));
      if (reduction >= 0) {
        g.reduction_steps.push_back(step_of(leaf->coeff, sm.loops[reduction], facts.buffers[buffer], order));
      }
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

}  // namespace ktune::cost_model::internal
