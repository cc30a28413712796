// Entry points: naive(), heuristic() and sample() all go through build(), which decides
// Funcs from the outputs back to the inputs (a producer's compute location depends on its
// consumer's loops); mutate() and crossover() draw from the mutator table and re-validate.
#include "scheduler/space.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "scheduler/family_templates.h"
#include "scheduler/gpu_mapping.h"
#include "scheduler/gpu_stage_template.h"
#include "scheduler/host_consumer.h"
#include "scheduler/image_strips.h"
#include "scheduler/buffer_limits.h"
#include "scheduler/inline_cost.h"
#include "scheduler/input_pack.h"
#include "scheduler/loop_nest.h"
#include "scheduler/sliding_window.h"
#include "scheduler/stage_template.h"
#include "scheduler/tail_strategy.h"

namespace ktune::scheduler {
namespace {

constexpr int kMaxTries = 64;

// Powers of two in [lo, hi].
std::vector<int64_t> powers_of_two(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= hi; p *= 2) {
    if (p >= lo) out.push_back(p);
  }
  return out;
}

// The heuristic's tiling choice for a stage: native vectors along the innermost pure loop,
// tiles of 4 rows (unrolled) under a reduction and of 8 rows otherwise, a long reduction
// split into pieces of 4 vectors where the pure loops offer too little parallelism, blocks
// of a long 1-D loop sized for the thread pool, and one parallel loop when at root.
TilingChoice heuristic_choice(const StageAnalysis& sa, bool at_root, const TargetInfo& t) {
  TilingChoice c;
  const int lanes = sa.native_lanes(t);
  const LoopAnalysis* v = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (v && v->extent >= lanes) c.vector_width = lanes;
  const bool reduction = sa.first_reduction() != nullptr;
  if (reduction) {
    if (y && y->extent >= 4) {
      c.second_tile = 4;
      c.unroll_second = true;
    }
    c.reduction_inside_tiles = c.vector_width > 0;
    if (sa.rfactor_ok && sa.pure_iterations() < 2 * t.cores && sa.loops[0].extent >= 8 * lanes) {
      c.reduction_split = 4 * lanes;
      c.rfactor = false;
    }
  } else if (y && y->extent >= 8) {
    c.second_tile = 8;
  } else if (!y && v && c.vector_width > 0 && v->extent >= 64 * lanes) {
    // A 1-D loop: each parallel task gets a block of about 1/(8 x cores) of the loop (at
    // least 64 vectors). The thread pool pays per task: eltwise's 16M floats in blocks of
    // 64 vectors (16384 tasks) ran in 6.1 ms, in 16 blocks in 2.8 ms.
    int64_t tile = 64 * lanes;
    while (tile * 2 * 8 * t.cores <= v->extent) tile *= 2;
    c.inner_tile = tile;
  }
  c.parallel_loops = at_root ? 1 : 0;
  return c;
}

TilingChoice sampled_choice(const StageAnalysis& sa, bool at_root, const TargetInfo& t, Rng& rng) {
  TilingChoice c;
  const int lanes = sa.native_lanes(t);
  const int widest = sa.max_vector_width(t);
  const LoopAnalysis* v = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  const bool reduction = sa.first_reduction() != nullptr;
  if (v && rng.chance(0.9)) {
    std::vector<int64_t> widths;
    for (int64_t w : {lanes / 2, lanes, 2 * lanes, 4 * lanes}) {
      if (w >= 2 && w <= v->extent && w <= widest) widths.push_back(w);
    }
    if (widths.empty() && v->extent >= 2 && v->extent <= widest) widths.push_back(v->extent);
    if (!widths.empty()) c.vector_width = rng.chance(0.6) && std::count(widths.begin(), widths.end(), lanes) ? lanes : rng.pick(widths);
    if (c.vector_width > 0 && rng.chance(0.4)) {
      std::vector<int64_t> tiles;
      for (int64_t m : {2, 4, 8, 16, 64, 256, 1024, 4096, 16384}) {
        if (c.vector_width * m <= v->extent) tiles.push_back(c.vector_width * m);
      }
      if (!tiles.empty()) c.inner_tile = rng.pick(tiles);
    }
  }
  // An unrolled register tile keeps its vectors in registers: at most half the register file
  // (8 rows of one vector with AVX2's 16 registers, 16 with AVX-512's or AArch64's 32).
  const int64_t vectors_per_row = std::max<int64_t>(1, c.vector_width / std::max(1, lanes));
  if (y && y->extent >= 2 && rng.chance(0.7)) {
    const std::vector<int64_t> tiles = powers_of_two(2, std::min<int64_t>(y->extent, 64));
    if (!tiles.empty()) c.second_tile = rng.pick(tiles);
    c.unroll_second = c.second_tile * vectors_per_row <= t.vector_registers / 2 && rng.chance(reduction ? 0.7 : 0.3);
  }
  const LoopAnalysis* z = sa.pure_loop(2);
  if (z && z->extent >= 4 && rng.chance(0.3)) {
    // A tile of the third loop (a convolution's output channels): unrolled, a register tile
    // across it, as oneDNN holds a block of output channels in registers.
    const std::vector<int64_t> tiles = powers_of_two(2, std::min<int64_t>(z->extent / 2, 16));
    if (!tiles.empty()) c.third_tile = rng.pick(tiles);
    const int64_t rows = c.unroll_second ? c.second_tile : 1;
    c.unroll_third = rows * c.third_tile * vectors_per_row <= t.vector_registers / 2 && rng.chance(0.6);
  }
  if (reduction) {
    for (const LoopAnalysis& l : sa.loops) {
      if (l.is_reduction) {
        const std::vector<int64_t> splits = powers_of_two(2, std::min<int64_t>(l.extent / 2, 256));
        if (!splits.empty() && rng.chance(0.4)) c.reduction_split = rng.pick(splits);
        break;
      }
    }
    c.reduction_inside_tiles = rng.chance(0.75);
    const int64_t reduction_loops = std::count_if(sa.loops.begin(), sa.loops.end(), [](const LoopAnalysis& l) {
      return l.is_reduction;
    });
    if (sa.rfactor_ok && reduction_loops >= 2 && c.reduction_split == 0) c.reverse_reductions = rng.chance(0.3);
    const bool starved = sa.pure_iterations() < 2 * t.cores;
    if (sa.rfactor_ok && c.reduction_split > 0 && rng.chance(starved ? 0.7 : 0.05)) c.rfactor = rng.chance(0.5);
  }
  c.parallel_loops = at_root ? static_cast<int>(rng.pick(std::vector<int64_t>{0, 1, 1, 1, 2, 2, 3})) : 0;
  return c;
}

// The loops of an inlined Func's pure stage whose values reach the Func asked about, by
// inlined Func (nullopt: it does not read it): each is worked out once, however many paths
// lead to it.
using ReachingLoops = std::map<int, std::optional<std::set<std::string>>>;

bool insert_loops_reaching(const Analysis& analysis, const Schedule& schedule, const StageAnalysis& stage, int func,
                           std::set<std::string>& loops, ReachingLoops& known);

// The loops of inlined Func `inlined`'s pure stage whose values reach Func `func`'s indices.
const std::optional<std::set<std::string>>& loops_reaching_through(const Analysis& analysis, const Schedule& schedule,
                                                                   int inlined, int func, ReachingLoops& known) {
  if (const auto it = known.find(inlined); it != known.end()) return it->second;
  known[inlined] = std::nullopt;  // a cycle, which a pipeline never has, reaches nothing
  std::set<std::string> vars;
  if (!insert_loops_reaching(analysis, schedule, analysis.funcs[inlined].stages[0], func, vars, known)) return known[inlined];
  return known[inlined] = std::move(vars);
}

// Adds to `loops` the loops of `stage` whose values reach Func `func`'s indices, directly or
// through inlined Funcs, each followed along the dimensions whose variables reach `func`
// (a normalization's output inlined into a gate reads the rows' statistics along the rows
// only). True when `stage` reads `func` so.
bool insert_loops_reaching(const Analysis& analysis, const Schedule& schedule, const StageAnalysis& stage, int func,
                           std::set<std::string>& loops, ReachingLoops& known) {
  bool reaches = false;
  for (const ProducerUse& use : stage.uses) {
    if (use.func < 0) continue;
    if (use.func == func) {
      reaches = true;
      loops.insert(use.index_loops.begin(), use.index_loops.end());
      continue;
    }
    const FuncSchedule* fs = schedule.find(analysis.funcs[use.func].name);
    if (!fs || fs->compute.kind != ComputeLocation::Kind::kInline) continue;
    const std::optional<std::set<std::string>>& vars = loops_reaching_through(analysis, schedule, use.func, func, known);
    if (!vars) continue;
    reaches = true;
    const StageAnalysis& reader = analysis.funcs[use.func].stages[0];
    for (size_t d = 0; d < use.dim_loops.size(); ++d) {
      const LoopAnalysis* var = reader.pure_loop(d);
      if (var && vars->count(var->name)) loops.insert(use.dim_loops[d].begin(), use.dim_loops[d].end());
    }
  }
  return reaches;
}

// Per Func between a host and a scan (inlined or computed inside the host), the pure
// variables whose values reach a dimension the scan reduces along: each worked out once.
using ScanReaching = std::map<int, std::set<std::string>>;

// Loops of `stage` whose values reach a dimension Func `func` reduces along (a scan's row),
// where `stage` reads `func` directly or through Funcs not computed at root.
std::set<std::string> loops_reaching_scanned_dims(const Analysis& analysis, const Schedule& schedule,
                                                  const StageAnalysis& stage, int func, ScanReaching& known);

// The pure variables of Func `g` whose values reach a dimension `func` reduces along.
const std::set<std::string>& vars_reaching_scanned_dims(const Analysis& analysis, const Schedule& schedule, int g,
                                                        int func, ScanReaching& known) {
  if (const auto it = known.find(g); it != known.end()) return it->second;
  known[g] = {};  // a cycle, which a pipeline never has, reaches nothing
  std::set<std::string> vars;
  for (const StageAnalysis& st : analysis.funcs[g].stages) {
    for (const std::string& loop : loops_reaching_scanned_dims(analysis, schedule, st, func, known)) {
      const LoopAnalysis* l = st.find(loop);
      if (l && !l->is_reduction) vars.insert(loop);
    }
  }
  return known[g] = std::move(vars);
}

std::set<std::string> loops_reaching_scanned_dims(const Analysis& analysis, const Schedule& schedule,
                                                  const StageAnalysis& stage, int func, ScanReaching& known) {
  std::set<std::string> loops;
  const std::vector<bool>& reduced = analysis.funcs[func].reduced_dims;
  for (const ProducerUse& use : stage.uses) {
    if (use.func < 0) continue;
    if (use.func == func) {
      for (size_t d = 0; d < use.dim_loops.size() && d < reduced.size(); ++d) {
        if (reduced[d]) loops.insert(use.dim_loops[d].begin(), use.dim_loops[d].end());
      }
      continue;
    }
    const FuncAnalysis& g = analysis.funcs[use.func];
    const FuncSchedule* gs = schedule.find(g.name);
    if (!gs || gs->compute.kind == ComputeLocation::Kind::kRoot) continue;
    const std::set<std::string>& vars = vars_reaching_scanned_dims(analysis, schedule, use.func, func, known);
    for (size_t d = 0; d < use.dim_loops.size() && d < g.args.size(); ++d) {
      if (vars.count(g.args[d])) loops.insert(use.dim_loops[d].begin(), use.dim_loops[d].end());
    }
  }
  return loops;
}

// The location the heuristic gives a reduction: the innermost outer tile loop ("_o") of its
// host such that this loop and every loop around it index the producer, so no enclosing
// loop recomputes the same values (softmax's row maximum is computed per block of rows,
// not per tile of a row; layernorm's variance, read through the inlined inverse standard
// deviation, per block of rows, not per block of columns). nullopt when no loop qualifies.
std::optional<ComputeLocation> tile_location_of(const Analysis& analysis, const Schedule& schedule, int func,
                                                const std::vector<ComputeLocation>& at) {
  if (at.empty()) return std::nullopt;
  const int host = analysis.index_of(at.front().consumer);
  const int stage = at.front().consumer_stage;
  // Loops of the host stage whose values reach the producer's indices, where the host reads
  // it directly or through inlined Funcs.
  std::set<std::string> used;
  ReachingLoops known;
  const bool direct = insert_loops_reaching(analysis, schedule, analysis.funcs[host].stages[stage], func, used, known);
  // Loops that index a dimension the producer reduces along (a scan's row), directly or
  // through the Funcs computed between them (a transpose, a second pass): a tile of them
  // would still run the whole scan, once per tile.
  ScanReaching scans;
  const std::set<std::string> whole_reductions =
      loops_reaching_scanned_dims(analysis, schedule, analysis.funcs[host].stages[stage], func, scans);
  StageSchedule st;
  st.stage = stage;
  if (const FuncSchedule* hs = schedule.find(analysis.funcs[host].name)) {
    for (const StageSchedule& x : hs->stages) {
      if (x.stage == stage) st = x;
    }
  }
  std::string error;
  const auto nest = build_loop_nest(analysis.funcs[host].stages[stage], st, &error);
  if (!nest) return std::nullopt;
  std::optional<ComputeLocation> best;
  // Walk from the outermost loop inwards while every loop indexes the producer.
  for (auto it = nest->loops.rbegin(); it != nest->loops.rend(); ++it) {
    if (direct && !used.count(it->origin)) break;
    if (whole_reductions.count(it->origin)) break;
    for (const ComputeLocation& o : at) {
      if (o.loop == it->name && !it->innermost_piece) best = o;
    }
  }
  return best;
}

// The location at the outer tile loop of the consumer's innermost pure loop ("x_o"), at
// "y_o" where x_o is outermost (column panels walked down blocks of rows; at "x_o" where the
// rows are one block), or at "c_b" where the consumer walks
// blocks of channels (the channel layout), where a matmul's or convolution's
// accumulator is computed per tile (family_templates.h, conv_templates.h), if `at` offers it.
std::optional<ComputeLocation> consumer_tile_location(const Analysis& analysis, const Schedule& schedule,
                                                      const std::vector<ComputeLocation>& at) {
  for (const ComputeLocation& o : at) {
    const FuncAnalysis* consumer = analysis.find(o.consumer);
    const FuncSchedule* scheduled = schedule.find(o.consumer);
    const StageAnalysis* stage = consumer ? &consumer->stages[o.consumer_stage] : nullptr;
    const LoopAnalysis* x = stage ? stage->pure_loop(0) : nullptr;
    const LoopAnalysis* y = stage ? stage->pure_loop(1) : nullptr;
    if (!x) continue;
    const StageSchedule st = scheduled ? scheduled->stage_or_empty(o.consumer_stage) : StageSchedule{};
    std::string tile = loop_piece(x->name, "_o");
    const auto in_order = [&](const std::string& loop) {
      return std::find(st.order.begin(), st.order.end(), loop) != st.order.end();
    };
    if (walks_column_panels(*stage, st) && y && in_order(loop_piece(y->name, "_o"))) tile = loop_piece(y->name, "_o");
    if (const std::optional<std::string> block = channel_block_loop(*stage, st)) tile = *block;
    if (o.loop == tile) return o;
  }
  return std::nullopt;
}

// True when every Func that reads pure Func `func` and is not its host is a row reduction
// computed at `location` already: `func` is made there beside them (softmax's exponentials
// beside the row sum that reads them), not in a pass of its own.
bool beside_its_readers(const Analysis& analysis, const Schedule& schedule, int func, const ComputeLocation& location) {
  bool any = false;
  for (const auto& [reader, stage] : analysis.funcs[func].consumers) {
    const FuncAnalysis& ra = analysis.funcs[reader];
    if (ra.name == location.consumer) continue;
    const FuncSchedule* rs = schedule.find(ra.name);
    if (!rs || !(rs->compute == location) || !ra.has_updates() ||
        !is_row_reduction(ra, ra.stages.back(), analysis.target)) {
      return false;
    }
    any = true;
  }
  return any && !analysis.funcs[func].has_updates();
}

// A producer that reads one point of a pipeline input with a few operations (a boundary
// condition, a cast): inlining it costs less than storing it.
bool cheap_to_recompute(const Analysis& analysis, int func) {
  const FuncAnalysis& fa = analysis.funcs[func];
  if (fa.has_updates() || fa.stages[0].arith_ops > 8) return false;
  std::set<std::string> points;
  for (const ProducerUse& use : fa.stages[0].uses) {
    if (use.func >= 0) return false;
    points.insert(use.access);
  }
  return points.size() <= 1;
}

// True when Func `func` covers at least half as many points as the Func it would be
// computed at: a stage of an image pipeline at the output's resolution, whose tiles
// overlap only by their halos. A level of a pyramid (a quarter of the points, then a
// sixteenth, ...) read per tile of the output would be recomputed over and over.
bool full_resolution(const Analysis& analysis, int func, const ComputeLocation& at) {
  const auto points = [](const FuncAnalysis& fa) {
    double n = 1;
    for (int64_t e : fa.extents) n *= static_cast<double>(std::max<int64_t>(1, e));
    return n;
  };
  const int host = analysis.index_of(at.consumer);
  return host >= 0 && points(analysis.funcs[func]) >= 0.5 * points(analysis.funcs[host]);
}

}  // namespace

Space::Space(Analysis analysis)
    : analysis_(std::move(analysis)),
      validators_(default_validators()),
      mutators_(default_mutators(analysis_.target.kind)) {}

Space::~Space() = default;

Schedule Space::naive() const {
  Schedule s;
  for (const FuncAnalysis& fa : analysis_.funcs) {
    FuncSchedule f;
    f.func = fa.name;
    f.compute.kind = ComputeLocation::Kind::kRoot;
    if (analysis_.target.is_gpu()) {
      for (const StageAnalysis& sa : fa.stages) f.stages.push_back(make_gpu_stage(sa, GpuTilingChoice{}, true));
    }
    s.funcs.push_back(f);
  }
  return s;
}

std::vector<ComputeLocation> Space::compute_options(const Schedule& schedule, int func) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  std::vector<ComputeLocation> options;
  if (fa.is_output) return {ComputeLocation{ComputeLocation::Kind::kRoot, "", 0, ""}};
  options.push_back({ComputeLocation::Kind::kRoot, "", 0, ""});
  if (!fa.has_updates()) options.push_back({ComputeLocation::Kind::kInline, "", 0, ""});
  int host = -1, stage = -1;
  std::string innermost;
  if (analysis_.target.is_gpu()) {
    // Halide 14 resolves compute_at loops in the consumer's last stage only.
    const auto [consumer, use_stage] = host_consumer(analysis_, schedule, func);
    if (consumer < 0 || use_stage != static_cast<int>(analysis_.funcs[consumer].stages.size()) - 1) return options;
    const FuncSchedule* cs = schedule.find(analysis_.funcs[consumer].name);
    if (!cs || cs->compute.kind != ComputeLocation::Kind::kRoot) return options;
    host = consumer;
    stage = use_stage;
  } else {
    const AtHost at = at_host(analysis_, schedule, func);
    if (at.func < 0) return options;
    host = at.func;
    stage = at.stage;
    innermost = at.innermost;
  }
  const std::vector<ComputeLocation> at = at_locations(analysis_, schedule, host, stage, innermost);
  options.insert(options.end(), at.begin(), at.end());
  if (!fa.has_updates()) {  // Halide slides windows of pure Funcs only
    const std::vector<ComputeLocation> windows = window_locations(analysis_, schedule, at);
    options.insert(options.end(), windows.begin(), windows.end());
  }
  return options;
}

Schedule Space::build(Rng* rng) const {
  if (analysis_.target.is_gpu()) return build_gpu(rng);
  Schedule s;
  s.funcs.resize(analysis_.funcs.size());
  for (int i = static_cast<int>(analysis_.funcs.size()) - 1; i >= 0; --i) {
    const FuncAnalysis& fa = analysis_.funcs[i];
    FuncSchedule& f = s.funcs[i];
    f.func = fa.name;
    const std::vector<ComputeLocation> options = compute_options(s, i);
    std::vector<ComputeLocation> at;
    std::vector<ComputeLocation> windows;
    for (const ComputeLocation& o : options) {
      if (o.kind == ComputeLocation::Kind::kAt) (o.sliding() ? windows : at).push_back(o);
    }
    const bool can_inline = !fa.has_updates() && !fa.is_output;
    bool consumed_by_reduction = fa.consumers.size() > 1;
    for (const auto& [cf, cstage] : fa.consumers) consumed_by_reduction |= cstage > 0;
    // A stencil producer inlined is recomputed for every point its consumer reads, unless
    // it is as cheap as a boundary condition over an input.
    bool stencil = false;
    for (const auto& [cf, cstage] : fa.consumers) stencil |= reads_a_stencil_of(analysis_, cf, cstage, i);
    stencil = stencil && !cheap_to_recompute(analysis_, i);
    // A matmul's or convolution's accumulator is computed per tile of its consumer.
    const bool per_tile = accumulator_family(fa) != AccumulatorFamily::kNone;
    // A column reduction streams whole rows in parallel chunks: at root, not per tile.
    const bool columns = fa.has_updates() && is_column_reduction(fa, fa.stages.back(), analysis_.target);
    if (fa.is_output) {
      f.compute.kind = ComputeLocation::Kind::kRoot;
    } else if (!rng) {
      const auto at_tile = tile_location_of(analysis_, s, i, at);
      if (can_inline && !consumed_by_reduction && !stencil) {
        f.compute.kind = ComputeLocation::Kind::kInline;
      } else if (columns) {
        f.compute.kind = ComputeLocation::Kind::kRoot;
      } else if (const auto tile = per_tile ? consumer_tile_location(analysis_, s, at) : std::nullopt) {
        f.compute = *tile;
      } else if (at_tile && (fa.has_updates() || (stencil && full_resolution(analysis_, i, *at_tile)) ||
                             beside_its_readers(analysis_, s, i, *at_tile))) {
        f.compute = *at_tile;
      } else {
        f.compute.kind = ComputeLocation::Kind::kRoot;
      }
    } else {
      const double r = static_cast<double>(rng->below(1000)) / 1000.0;
      if (can_inline && r < (stencil ? 0.15 : consumed_by_reduction ? 0.35 : 0.7)) {
        f.compute.kind = ComputeLocation::Kind::kInline;
      } else if (!at.empty() && rng->chance(fa.has_updates() ? 0.6 : 0.5)) {
        // A stencil producer slides a window along a strip in some of the draws.
        f.compute = !windows.empty() && stencil && rng->chance(0.4) ? rng->pick(windows) : rng->pick(at);
      } else {
        f.compute.kind = ComputeLocation::Kind::kRoot;
      }
    }
    // Where Halide could not allocate it (an unbounded region, 2 GB at root), inline it.
    if (can_inline && unallocatable(fa, f.compute)) f.compute.kind = ComputeLocation::Kind::kInline;
    if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
    const bool root = f.compute.kind == ComputeLocation::Kind::kRoot;
    for (const StageAnalysis& sa : fa.stages) {
      std::optional<StageSchedule> family = family_stage(i, sa, f.compute, rng);
      StageSchedule st = family ? *family : make_stage(sa, tiling_choice(i, sa, root, rng));
      if (!st.splits.empty() || !st.order.empty() || !st.parallel.empty() || !st.vectorize.empty() ||
          !st.unroll.empty() || st.rfactor) {
        f.stages.push_back(st);
      }
    }
    const std::optional<ConvLayout> layout = conv_layout(fa);
    if (layout && at_channel_block(analysis_, f.compute, *layout)) f.storage = channels_innermost_storage(fa, *layout);
    if (root && !fa.has_updates()) store_activations_by_channel(s, i, rng);
  }
  if (std::optional<Schedule> strips = in_strips(s, rng)) return *strips;
  finish(s, rng);
  return s;
}

std::optional<Schedule> Space::in_strips(const Schedule& s, Rng* rng) const {
  // Image pipelines run in strips with their stencils as sliding windows: always in the
  // heuristic where the result validates, in some of the draws.
  if (rng && !rng->chance(0.3)) return std::nullopt;
  Schedule strips = s;
  if (!apply_image_strips(analysis_, strips)) return std::nullopt;
  finish(strips, rng);
  if (rng || !validate(strips)) return strips;
  return std::nullopt;
}

void Space::finish(Schedule& s, Rng* rng) const {
  narrow_gathering_vectors(analysis_, s);
  choose_tails(analysis_, s, rng);
  add_packs(s, rng);
}

TilingChoice Space::tiling_choice(int func, const StageAnalysis& sa, bool root, Rng* rng) const {
  const bool family = rng ? rng->chance(0.3) : true;
  if (family && root && sa.stage == 0 && !sa.first_reduction()) {
    const int acc = accumulator_read(analysis_, func);
    switch (acc < 0 ? AccumulatorFamily::kNone : accumulator_family(analysis_.funcs[acc])) {
      case AccumulatorFamily::kMatmul: {
        const int64_t reduction = analysis_.funcs[acc].stages.back().first_reduction()->extent;
        return matmul_consumer_choice(sa, reduction, analysis_.target, rng ? rng->chance(0.5) : true);
      }
      case AccumulatorFamily::kConv:
        return conv_consumer_choice(sa, analysis_.target);
      case AccumulatorFamily::kNone:
        break;
    }
  }
  if (family && !analysis_.funcs[func].has_updates() && reads_row_reduction(analysis_, func)) {
    return row_consumer_choice(sa, root, analysis_.target);
  }
  return rng ? sampled_choice(sa, root, analysis_.target, *rng) : heuristic_choice(sa, root, analysis_.target);
}

std::optional<StageSchedule> Space::family_stage(int func, const StageAnalysis& sa, const ComputeLocation& compute,
                                                 Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  const TargetInfo& t = analysis_.target;
  if (sa.stage == 0) return channel_block_stage(func, sa, compute, rng);
  if (rng && !rng->chance(0.3)) return std::nullopt;
  const bool at_consumer = compute.kind == ComputeLocation::Kind::kAt;
  const std::optional<ConvLayout> layout = conv_layout(fa, sa);
  if (layout && at_channel_block(analysis_, compute, *layout)) return conv_channel_update_stage(sa, *layout, t);
  if (at_consumer && is_matmul_update(fa, sa)) {
    StageSchedule st = matmul_update_stage(sa, t);
    add_dot_products(fa, sa, t, st);
    return st;
  }
  if (at_consumer && layout) return conv_update_stage(fa, sa, *layout, t);
  if (at_consumer && is_row_reduction(fa, sa, t)) return row_reduction_stage(sa, t);
  if (!at_consumer && is_column_reduction(fa, sa, t)) return column_reduction_stage(sa, t);
  return std::nullopt;
}

std::optional<StageSchedule> Space::channel_block_stage(int func, const StageAnalysis& sa, const ComputeLocation& compute,
                                                        Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  const TargetInfo& t = analysis_.target;
  // The cheap checks first: finding the accumulator it reads walks the pipeline's producers.
  if (compute.kind == ComputeLocation::Kind::kRoot && !fa.has_updates() && sa.pure_loop(2)) {
    const int acc = accumulator_read(analysis_, func);
    const std::optional<ConvLayout> read = acc < 0 ? std::nullopt : conv_layout(analysis_.funcs[acc]);
    if (read && suits_column_tiles(analysis_.funcs[acc], sa, t) && (!rng || rng->chance(0.3))) {
      return column_conv_consumer_stage(sa, *read, t);
    }
    if (read && conv_channel_blocks_fit(sa, *read, t) && (!rng || rng->chance(0.3))) {
      return conv_channel_consumer_stage(sa, *read, t);
    }
  }
  const std::optional<ConvLayout> own = conv_layout(fa);
  if (own && at_channel_block(analysis_, compute, *own)) return conv_channel_init_stage(sa, *own, t);
  return std::nullopt;
}

void Space::store_activations_by_channel(Schedule& s, int func, Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  for (const auto& [a, stage] : fa.consumers) {
    const FuncAnalysis& acc = analysis_.funcs[a];
    if (stage == 0) continue;  // an accumulator reads its activations in its update
    const std::optional<ConvLayout> layout = conv_layout(acc);
    if (!layout || !at_channel_block(analysis_, s.funcs[a].compute, *layout)) continue;
    const std::optional<StridedActivations> read = strided_activations(acc, *layout);
    if (!read || read->func != func || (rng && !rng->chance(0.5))) continue;
    s.funcs[func].stages = {channels_innermost_stage(fa.stages.front(), read->channel_dim, analysis_.target)};
    s.funcs[func].storage = dim_innermost_storage(fa, read->channel_dim);
    return;
  }
}

void Space::add_packs(Schedule& s, Rng* rng) const {
  // The packs each matmul Func offers, worked out once per Func (a panel pack walks its
  // host's loop nest).
  struct OperandPacks {
    std::optional<InputPack> transposed, panel;
  };
  std::map<std::string, OperandPacks> offered;
  const auto operand_packs = [&](const FuncAnalysis& fa) -> const OperandPacks& {
    auto it = offered.find(fa.name);
    if (it == offered.end()) {
      OperandPacks p{transposed_operand_pack(analysis_, s, fa, fa.stages.back()),
                     panel_operand_pack(analysis_, s, fa, fa.stages.back())};
      it = offered.emplace(fa.name, std::move(p)).first;
    }
    return it->second;
  };
  for (const InputAnalysis& input : analysis_.inputs) {
    std::optional<InputPack> pack;
    for (const FuncAnalysis& fa : analysis_.funcs) {
      if (fa.has_updates() && is_matmul_update(fa, fa.stages.back()) && (!rng || rng->chance(0.5))) {
        const OperandPacks& packs = operand_packs(fa);
        if (packs.transposed && packs.transposed->input == input.name) pack = packs.transposed;
        if (!pack && packs.panel && packs.panel->input == input.name) pack = packs.panel;
      }
      const FuncSchedule* scheduled = s.find(fa.name);
      const std::optional<ConvLayout> layout = conv_layout(fa);
      if (!pack && scheduled && layout && at_channel_block(analysis_, scheduled->compute, *layout) &&
          (!rng || rng->chance(0.5))) {
        const std::optional<InputPack> weights = conv_weight_pack(analysis_, fa, *layout);
        const std::optional<InputPack> activations = conv_activation_pack(analysis_, fa, *layout);
        if (weights && weights->input == input.name) pack = weights;
        if (activations && activations->input == input.name) pack = activations;
      }
    }
    if (!pack && rng && rng->chance(0.03)) pack = draw_pack(analysis_, s, input, *rng);
    if (pack) s.packs.push_back(*pack);
  }
}

Schedule Space::heuristic() const { return build(nullptr); }

std::optional<Schedule> Space::sample(Rng& rng) const {
  for (int t = 0; t < kMaxTries; ++t) {
    Schedule s = build(&rng);
    if (!validate(s)) return s;
  }
  return std::nullopt;
}

std::optional<Schedule> Space::propose(const Schedule& schedule, Rng& rng, std::string* mutator) const {
  double total = 0;
  for (const WeightedMutator& m : mutators_) total += m.weight;
  double r = static_cast<double>(rng.below(1 << 20)) / (1 << 20) * total;
  const WeightedMutator* chosen = &mutators_.back();
  for (const WeightedMutator& m : mutators_) {
    if (r < m.weight) {
      chosen = &m;
      break;
    }
    r -= m.weight;
  }
  if (mutator) *mutator = std::string(chosen->mutator->name());
  std::optional<Schedule> out = chosen->mutator->propose(schedule, *this, rng);
  if (out) refresh_window_folds(analysis_, *out);
  if (out && *out == schedule) return std::nullopt;
  return out;
}

std::optional<Schedule> Space::mutate(const Schedule& schedule, Rng& rng, std::string* mutator) const {
  for (int t = 0; t < kMaxTries; ++t) {
    std::string name;
    std::optional<Schedule> out = propose(schedule, rng, &name);
    if (out && !validate(*out)) {
      if (mutator) *mutator = name;
      return out;
    }
  }
  return std::nullopt;
}

std::optional<Schedule> Space::crossover(const Schedule& a, const Schedule& b, Rng& rng) const {
  if (a.funcs.size() != b.funcs.size()) return std::nullopt;
  for (int t = 0; t < kMaxTries / 4; ++t) {
    Schedule child = a;
    for (size_t i = 0; i < child.funcs.size(); ++i) {
      if (rng.chance(0.5)) child.funcs[i] = b.funcs[i];
    }
    refresh_window_folds(analysis_, child);
    if (!validate(child)) return child;
  }
  return std::nullopt;
}

std::optional<std::string> Space::validate(const Schedule& schedule, ValidationCounts* counts) const {
  if (counts) ++counts->checked;
  for (const auto& v : validators_) {
    if (auto reason = v->check(schedule, analysis_)) {
      if (counts) ++counts->rejected[std::string(v->name())];
      return std::string(v->name()) + ": " + *reason;
    }
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
