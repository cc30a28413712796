#include "scheduler/family_templates.h"

#include <algorithm>
#include <functional>
#include <map>

#include "scheduler/input_pack.h"
#include "scheduler/vector_reduce.h"

namespace ktune::scheduler {
namespace {

// The reads of `stage` (not the Func's reads of itself) whose indices use `loop`.
std::vector<const ProducerUse*> reads_indexed_by(const FuncAnalysis& func, const StageAnalysis& stage,
                                                 const std::string& loop) {
  std::vector<const ProducerUse*> out;
  for (const ProducerUse& use : stage.uses) {
    if (use.name != func.name && has_loop(use.index_loops, loop)) out.push_back(&use);
  }
  return out;
}

// True when Func `func` reaches Func `target` through at most kMaxPointwiseSteps pointwise
// reads that keep dimension `dim` (a bias and an activation after a matmul), each read
// indexing dimension `dim` by `func`'s pure loop `dim` alone. `failed` holds the Funcs found
// not to reach it, each with the fewest steps taken to them then: a Func met again after as
// many steps or more cannot reach it either, so every Func is walked at most a few times.
constexpr int kMaxPointwiseSteps = 8;

bool reaches_dim_within(const Analysis& analysis, int func, const std::string& target, size_t dim, int steps,
                        std::map<int, int>& failed) {
  const FuncAnalysis& fa = analysis.funcs[func];
  if (fa.name == target) return true;
  const LoopAnalysis* loop = fa.stages.front().pure_loop(dim);
  if (!loop || steps > kMaxPointwiseSteps) return false;
  if (const auto known = failed.find(func); known != failed.end() && known->second <= steps) return false;
  for (const ProducerUse& use : fa.stages.front().uses) {
    if (use.func < 0 || use.dim_loops.size() <= dim || use.dim_loops[dim] != std::vector<std::string>{loop->name}) continue;
    if (reaches_dim_within(analysis, use.func, target, dim, steps + 1, failed)) return true;
  }
  failed[func] = steps;
  return false;
}

bool reaches_dim(const Analysis& analysis, const FuncAnalysis& func, const std::string& target, size_t dim) {
  if (func.name == target) return true;
  const int index = analysis.index_of(func.name);
  std::map<int, int> failed;
  return index >= 0 && reaches_dim_within(analysis, index, target, dim, 0, failed);
}

// True when `at` is the outer piece of its host's vector loop, outermost in the host's order
// (a column panel), and the host's x is the accumulator `acc`'s x.
bool is_column_panel(const Analysis& analysis, const Schedule& schedule, const ComputeLocation& at, const FuncAnalysis& acc) {
  const FuncAnalysis* host = analysis.find(at.consumer);
  const FuncSchedule* scheduled = schedule.find(at.consumer);
  if (!host || !scheduled || at.consumer_stage != 0) return false;
  const LoopAnalysis* x = host->stages[0].pure_loop(0);
  return x && at.loop == loop_piece(x->name, "_o") && walks_column_panels(host->stages[0], scheduled->stage_or_empty(0)) &&
         reaches_dim(analysis, *host, acc.name, 0);
}

// The column panel of `acc`'s host at which a pack of `input` may be computed, if the host
// walks column panels.
std::optional<ComputeLocation> column_panel_location(const Analysis& analysis, const Schedule& schedule,
                                                     const FuncAnalysis& acc, const std::string& input) {
  for (const ComputeLocation& at : pack_locations(analysis, schedule, input)) {
    if (at.kind == ComputeLocation::Kind::kAt && is_column_panel(analysis, schedule, at, acc)) return at;
  }
  return std::nullopt;
}

// The host's outermost loop where it runs in parallel and is a whole pure loop (not a piece
// of a split) that reaches the same loop of `acc` (a batch of attention heads), at which a
// pack of `input`, which `use` reads by that loop, may be computed: each batch is copied by
// the thread that reads it, in one parallel pass, not in a pass of its own.
std::optional<ComputeLocation> parallel_batch_location(const Analysis& analysis, const Schedule& schedule,
                                                       const FuncAnalysis& acc, const ProducerUse& use,
                                                       const std::string& input) {
  for (const ComputeLocation& at : pack_locations(analysis, schedule, input)) {
    const FuncAnalysis* host = at.kind == ComputeLocation::Kind::kAt ? analysis.find(at.consumer) : nullptr;
    const FuncSchedule* scheduled = schedule.find(at.consumer);
    if (!host || !scheduled) continue;
    const StageSchedule st = scheduled->stage_or_empty(at.consumer_stage);
    if (st.order.empty() || st.order.back() != at.loop || st.parallel.empty() || st.parallel.front() != at.loop) continue;
    const StageAnalysis& stage = host->stages[at.consumer_stage];
    for (size_t d = 0; stage.pure_loop(d); ++d) {
      const LoopAnalysis* own = acc.stages.back().pure_loop(d);
      if (stage.pure_loop(d)->name == at.loop && own && has_loop(use.index_loops, own->name) &&
          reaches_dim(analysis, *host, acc.name, d)) {
        return at;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_row_reduction(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target) {
  const LoopAnalysis* r = stage.first_reduction();
  const LoopAnalysis* x = stage.pure_loop(0);
  if (!stage.rfactor_ok || !r || !x || r->extent < 4 * stage.native_lanes(target)) return false;
  const std::vector<const ProducerUse*> reads = reads_indexed_by(func, stage, r->name);
  if (reads.empty()) return false;
  // Every read along the reduction is of the row (indexed by x too): an operand reused
  // across x makes it a matmul.
  return std::all_of(reads.begin(), reads.end(), [&](const ProducerUse* use) {
    return has_loop(use->contiguous_loops, r->name) && !has_loop(use->contiguous_loops, x->name) &&
           has_loop(use->index_loops, x->name);
  });
}

StageSchedule row_reduction_stage(const StageAnalysis& stage, const TargetInfo& target) {
  TilingChoice c;
  c.reduction_split = stage.native_lanes(target);
  c.rfactor = true;  // the inner piece, vectorized
  StageSchedule st = make_stage(stage, c);
  st.rfactor->at_func = true;
  return st;
}

bool is_column_reduction(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target) {
  const LoopAnalysis* r = stage.first_reduction();
  const LoopAnalysis* x = stage.pure_loop(0);
  const int lanes = stage.native_lanes(target);
  if (!stage.rfactor_ok || !r || !x || stage.pure_loop(1) || stage.reduction_loop_count() != 1) return false;
  // Enough rows for a few chunks per core, of four rows each.
  if (x->extent < lanes || r->extent < 4 * 4 * target.cores) return false;
  const std::vector<const ProducerUse*> reads = reads_indexed_by(func, stage, r->name);
  if (reads.empty()) return false;
  return std::all_of(reads.begin(), reads.end(), [&](const ProducerUse* use) {
    return !has_loop(use->contiguous_loops, r->name) && has_loop(use->contiguous_loops, x->name);
  });
}

StageSchedule column_reduction_stage(const StageAnalysis& stage, const TargetInfo& target) {
  const LoopAnalysis& r = *stage.first_reduction();
  const LoopAnalysis& x = *stage.pure_loop(0);
  const int64_t lanes = stage.native_lanes(target);
  // 16 chunks per core (the partial sums of a 4096-wide row, 16 KiB each, stay in L2);
  // chunks of at least one pass of four rows.
  const int64_t rows_per_chunk = std::max<int64_t>(1, r.extent / 4 / (16 * target.cores));
  StageSchedule st;
  st.stage = stage.stage;
  st.splits = {{r.name, loop_piece(r.name, "_t"), loop_piece(r.name, "_u"), 4}};
  if (rows_per_chunk >= 2) st.splits.push_back({loop_piece(r.name, "_t"), loop_piece(r.name, "_o"), loop_piece(r.name, "_m"), rows_per_chunk});
  const std::string chunks = rows_per_chunk >= 2 ? loop_piece(r.name, "_o") : loop_piece(r.name, "_t");
  st.rfactor = RFactor{chunks, false};
  st.rfactor->pure_vector = std::min(lanes, x.extent);
  st.unroll = {loop_piece(r.name, "_u")};
  // What remains, a sum over the chunks, vectorized along the row.
  if (x.extent > lanes) {
    st.splits.push_back({x.name, loop_piece(x.name, "_o"), loop_piece(x.name, "_i"), lanes});
    st.vectorize = loop_piece(x.name, "_i");
  } else {
    st.vectorize = x.name;
  }
  return st;
}

bool is_matmul_update(const FuncAnalysis& func, const StageAnalysis& stage) {
  const LoopAnalysis* r = stage.first_reduction();
  const LoopAnalysis* x = stage.pure_loop(0);
  if (!stage.rfactor_ok || !r || !x || !stage.pure_loop(1) || stage.reduction_loop_count() != 1) return false;
  bool reused_across_x = false, indexed_by_x = false;
  for (const ProducerUse* use : reads_indexed_by(func, stage, r->name)) {
    if (has_loop(use->index_loops, x->name)) {
      indexed_by_x = true;
    } else {
      reused_across_x = true;
    }
  }
  return reused_across_x && indexed_by_x;
}

int64_t matmul_tile_vectors(int64_t x_extent, int64_t lanes, const TargetInfo& target) {
  const int64_t vectors = matmul_register_vectors(target);
  const int64_t width = vectors * lanes;
  if (vectors <= 2 || x_extent % width == 0 || x_extent >= 2 * width) return vectors;
  const auto columns_computed = [&](int64_t tile) { return (x_extent + tile - 1) / tile * tile; };
  return columns_computed(2 * lanes) < columns_computed(width) ? 2 : vectors;
}

StageSchedule matmul_update_stage(const StageAnalysis& stage, const TargetInfo& target) {
  const LoopAnalysis& x = *stage.pure_loop(0);
  const LoopAnalysis& y = *stage.pure_loop(1);
  const LoopAnalysis& r = *stage.first_reduction();
  const int64_t lanes = stage.native_lanes(target);
  // Half the register file in accumulators, matmul_tile_vectors vectors across x by the rows
  // that leaves: 4 x 4 with AVX-512's 32 registers (2 x 8 for a few odd columns), 2 x 4 with
  // AVX2's 16.
  const int64_t wanted = matmul_tile_vectors(x.extent, lanes, target) * lanes;
  const int64_t width = x.extent >= wanted ? wanted : x.extent >= 2 * lanes ? 2 * lanes : std::min(lanes, x.extent);
  const int64_t vectors = std::max<int64_t>(1, width / lanes);
  const int64_t rows = std::min<int64_t>(y.extent, matmul_tile_rows(vectors, target));
  StageSchedule st;
  st.stage = stage.stage;
  std::vector<std::string> inner, outer;
  if (width >= 2) {
    // Split even when the vectors cover x: computed per tile, only a split piece may be vectorized.
    st.splits.push_back({x.name, loop_piece(x.name, "_o"), loop_piece(x.name, "_i"), width});
    inner.push_back(loop_piece(x.name, "_i"));
    outer.push_back(loop_piece(x.name, "_o"));
    st.vectorize = inner.front();
  } else {
    inner.push_back(x.name);
  }
  if (rows >= 2 && rows < y.extent) {
    st.splits.push_back({y.name, loop_piece(y.name, "_o"), loop_piece(y.name, "_i"), rows});
    inner.push_back(loop_piece(y.name, "_i"));
    outer.push_back(loop_piece(y.name, "_o"));
    st.unroll = {loop_piece(y.name, "_i")};
  } else {
    outer.push_back(y.name);
  }
  std::vector<std::string> reduction_outer;
  if (matmul_reduction_blocked(r.extent)) {
    st.splits.push_back({r.name, loop_piece(r.name, "_o"), loop_piece(r.name, "_i"), kReductionBlock});
    inner.push_back(loop_piece(r.name, "_i"));
    reduction_outer.push_back(loop_piece(r.name, "_o"));
  } else {
    inner.push_back(r.name);
  }
  st.order = inner;
  st.order.insert(st.order.end(), outer.begin(), outer.end());
  st.order.insert(st.order.end(), reduction_outer.begin(), reduction_outer.end());
  for (size_t i = 2; stage.pure_loop(i); ++i) st.order.push_back(stage.pure_loop(i)->name);
  return st;
}

void add_dot_products(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target, StageSchedule& st) {
  const int64_t factor = dot_product_factor(func, stage, target);
  if (factor == 0 || st.vectorize.empty()) return;
  std::string error;
  const std::optional<LoopNest> nest = build_loop_nest(stage, st, &error);
  StageSchedule with = st;
  if (nest && nest->position(st.vectorize) == 0 && add_vector_reduce(with, *nest, factor)) st = with;
}

bool column_panels_fit(const StageAnalysis& consumer, const TargetInfo& target) {
  const LoopAnalysis* x = consumer.pure_loop(0);
  const LoopAnalysis* y = consumer.pure_loop(1);
  const int64_t panel = kPanelVectors * consumer.native_lanes(target);
  const int64_t panels = std::max<int64_t>(8, 2 * target.cores);  // two or more per core
  return x && y && !consumer.pure_loop(2) && x->extent >= panels * panel;
}

TilingChoice matmul_consumer_choice(const StageAnalysis& consumer, int64_t reduction_extent, const TargetInfo& target,
                                   bool panels) {
  TilingChoice c;
  const int lanes = consumer.native_lanes(target);
  const LoopAnalysis* x = consumer.pure_loop(0);
  const LoopAnalysis* y = consumer.pure_loop(1);
  if (x && x->extent >= lanes) {
    c.vector_width = lanes;
    if (x->extent >= 2 * lanes) c.inner_tile = std::min<int64_t>(16 * lanes, x->extent / lanes * lanes);
  }
  // The register tile's vectors across x, and by its rows where one tile sums the reduction.
  const int64_t tile_vectors = x ? matmul_tile_vectors(x->extent, lanes, target) : matmul_register_vectors(target);
  const int64_t rows = matmul_reduction_blocked(reduction_extent) ? 32 : matmul_tile_rows(tile_vectors, target);
  if (y && y->extent > rows) c.second_tile = rows;
  if (panels && column_panels_fit(consumer, target)) {
    c.inner_tile = kPanelVectors * lanes;
    // Fewer than two blocks of rows are one block: no rows computed twice, the panel read once.
    c.second_tile = panels_walk_row_blocks(y->extent) ? kPanelRows : 0;
    c.panels = true;
  }
  // Where one register tile sums the reduction whole, the consumer's tile is one register
  // tile across x too, so the update walks its region once with no loop over tiles inside.
  const bool one_register_tile = !matmul_reduction_blocked(reduction_extent) && !c.panels;
  if (c.inner_tile > 0 && (x->extent % c.inner_tile != 0 || one_register_tile)) {
    // One split, vectorized whole (at most a panel wide): its last tile shifts inwards to a
    // full one. Two nested shifted splits would leave the last tile shorter, the
    // accumulator's region of no constant width, and every tile's update on Halide's
    // general path.
    c.vector_width = std::min<int64_t>({c.inner_tile, std::min(kPanelVectors, tile_vectors) * lanes, kMaxVectorWidth});
    c.inner_tile = 0;
  }
  c.parallel_loops = 1;
  return c;
}

bool walks_column_panels(const StageAnalysis& consumer, const StageSchedule& st) {
  const LoopAnalysis* x = consumer.pure_loop(0);
  return x && !st.order.empty() && st.order.back() == loop_piece(x->name, "_o");
}

std::optional<InputPack> panel_operand_pack(const Analysis& analysis, const Schedule& schedule, const FuncAnalysis& func,
                                            const StageAnalysis& update) {
  const LoopAnalysis& x = *update.pure_loop(0);
  const LoopAnalysis* y = update.pure_loop(1);
  if (!y || !panels_walk_row_blocks(y->extent)) return std::nullopt;
  for (const ProducerUse* use : reads_indexed_by(func, update, update.first_reduction()->name)) {
    if (use->func >= 0 || !has_loop(use->contiguous_loops, x.name)) continue;
    const InputAnalysis* input = analysis.find_input(use->name);
    if (!input || input->extents.size() != 2) continue;
    if (const std::optional<ComputeLocation> panel = column_panel_location(analysis, schedule, func, input->name)) {
      InputPack pack = transposed_pack(analysis, *input, 0);
      pack.compute = *panel;
      pack.parallel = false;
      return pack;
    }
  }
  return std::nullopt;
}

std::optional<InputPack> transposed_operand_pack(const Analysis& analysis, const Schedule& schedule,
                                                 const FuncAnalysis& func, const StageAnalysis& update) {
  const LoopAnalysis& x = *update.pure_loop(0);
  for (const ProducerUse* use : reads_indexed_by(func, update, update.first_reduction()->name)) {
    if (use->func >= 0 || !has_loop(use->index_loops, x.name) || has_loop(use->contiguous_loops, x.name)) continue;
    const InputAnalysis* input = analysis.find_input(use->name);
    if (!input || use->dim_loops.size() != input->extents.size()) continue;
    int dim = -1;
    for (size_t d = 0; d < use->dim_loops.size(); ++d) {
      if (has_loop(use->dim_loops[d], x.name)) dim = static_cast<int>(d);
    }
    if (dim <= 0) continue;
    InputPack pack = transposed_pack(analysis, *input, dim);
    std::optional<ComputeLocation> at = column_panel_location(analysis, schedule, func, input->name);
    if (!at) at = parallel_batch_location(analysis, schedule, func, *use, input->name);
    if (at) {
      pack.compute = *at;  // the panels or the batches run in parallel, not the copy
      pack.parallel = false;
    }
    return pack;
  }
  return std::nullopt;
}

AccumulatorFamily accumulator_family(const FuncAnalysis& func) {
  if (!func.has_updates()) return AccumulatorFamily::kNone;
  if (is_matmul_update(func, func.stages.back())) return AccumulatorFamily::kMatmul;
  if (is_conv_update(func, func.stages.back())) return AccumulatorFamily::kConv;
  return AccumulatorFamily::kNone;
}

namespace {

// The first producer that Func `func` reads, directly or through Funcs without updates,
// for which `found` is true; -1 when there is none.
int find_read_producer(const Analysis& analysis, int func, const std::function<bool(const FuncAnalysis&)>& found) {
  // Depth first through Funcs without updates, each visited once (pipelines can be diamonds).
  std::vector<bool> seen(analysis.funcs.size(), false);
  std::vector<int> todo = {func};
  while (!todo.empty()) {
    const int f = todo.back();
    todo.pop_back();
    for (const StageAnalysis& stage : analysis.funcs[f].stages) {
      for (const ProducerUse& use : stage.uses) {
        if (use.func < 0 || use.func == f || seen[use.func]) continue;
        seen[use.func] = true;
        const FuncAnalysis& producer = analysis.funcs[use.func];
        if (found(producer)) return use.func;
        if (!producer.has_updates()) todo.push_back(use.func);
      }
    }
  }
  return -1;
}

}  // namespace

int accumulator_read(const Analysis& analysis, int func) {
  return find_read_producer(analysis, func, [](const FuncAnalysis& f) {
    return f.has_updates() && accumulator_family(f) != AccumulatorFamily::kNone;
  });
}

bool reads_row_reduction(const Analysis& analysis, int func) {
  return find_read_producer(analysis, func, [&](const FuncAnalysis& f) {
           return f.has_updates() && is_row_reduction(f, f.stages.back(), analysis.target);
         }) >= 0;
}

TilingChoice row_consumer_choice(const StageAnalysis& consumer, bool at_root, const TargetInfo& target) {
  TilingChoice c;
  const int lanes = consumer.native_lanes(target);
  const LoopAnalysis* x = consumer.pure_loop(0);
  const LoopAnalysis* y = consumer.pure_loop(1);
  if (x && x->extent >= lanes) c.vector_width = lanes;
  if (y) {
    int64_t rows = kRowBlock;
    while (rows > 2 && y->extent / rows < 4 * target.cores) rows /= 2;
    c.second_tile = rows;
    c.whole_rows = true;
  }
  c.parallel_loops = at_root ? 1 : 0;
  return c;
}

}  // namespace ktune::scheduler
