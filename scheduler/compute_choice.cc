#include "scheduler/compute_choice.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "scheduler/conv_templates.h"
#include "scheduler/family_templates.h"
#include "scheduler/inline_cost.h"
#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

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

// True when every reader of Func `func` is a convolution update with dot products
// (conv_uses_dot_products) that broadcasts it: its indices leave out the reader's innermost
// pure loop, so each dot product reads 4 bytes of it for 64 multiply-adds, and a boundary
// condition inlined there costs little.
bool broadcast_into_dot_products(const Analysis& analysis, int func) {
  const FuncAnalysis& fa = analysis.funcs[func];
  if (fa.consumers.empty()) return false;
  for (const auto& [cf, cstage] : fa.consumers) {
    const FuncAnalysis& reader = analysis.funcs[cf];
    const StageAnalysis& stage = reader.stages[cstage];
    if (cstage == 0 || !conv_uses_dot_products(reader, stage, analysis.target)) return false;
    for (const ProducerUse& use : stage.uses) {
      if (use.func == func && has_loop(use.index_loops, stage.pure_loop(0)->name)) return false;
    }
  }
  return true;
}

// Arithmetic per entry up to which a table read at data is cheaper inlined than looked up:
// a vector of lookups is one scalar load per lane. The test Generator ktune_lut_tone's
// curve (5 operations) ran in 115 us inlined and 207 us as a table; the public camera_pipe's
// (38, two pow calls) in 11.3 ms inlined and 8.2 ms as a table (2-core AMD EPYC).
constexpr int kLookupOps = 8;

// True when a reader looks Func `func` up at an index that is data, more times than the
// table has entries, and each entry costs more than kLookupOps (a tone curve read per
// pixel): inlined, each lookup would compute its entry again.
bool looked_up(const Analysis& analysis, int func) {
  const FuncAnalysis& fa = analysis.funcs[func];
  if (fa.has_updates() || fa.stages[0].arith_ops <= kLookupOps) return false;
  double entries = 1;
  for (int64_t e : fa.extents) entries *= static_cast<double>(std::max<int64_t>(1, e));
  for (const auto& [cf, cstage] : fa.consumers) {
    const StageAnalysis& stage = analysis.funcs[cf].stages[cstage];
    if (reads_at_data(stage, func) && static_cast<double>(stage.pure_iterations()) > 2 * entries) return true;
  }
  return false;
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

// The heuristic's location: inline what is cheap to recompute, a column reduction at root
// (it streams whole rows in parallel chunks), an accumulator per tile of its consumer, a
// reduction, a full-resolution stencil or a Func beside its readers at the outer tile loop
// that recomputes nothing, else root.
ComputeLocation heuristic_compute(const Analysis& analysis, const Schedule& s, int i,
                                  const std::vector<ComputeLocation>& at, bool consumed_by_reduction, bool stencil) {
  const FuncAnalysis& fa = analysis.funcs[i];
  const bool can_inline = !fa.has_updates() && !fa.is_output;
  // A matmul's or convolution's accumulator is computed per tile of its consumer.
  const bool per_tile = accumulator_family(fa) != AccumulatorFamily::kNone;
  const bool columns = fa.has_updates() && is_column_reduction(fa, fa.stages.back(), analysis.target);
  ComputeLocation c;
  const auto at_tile = tile_location_of(analysis, s, i, at);
  if (can_inline && !consumed_by_reduction && !stencil) {
    c.kind = ComputeLocation::Kind::kInline;
  } else if (columns) {
    c.kind = ComputeLocation::Kind::kRoot;
  } else if (const auto tile = per_tile ? consumer_tile_location(analysis, s, at) : std::nullopt) {
    c = *tile;
  } else if (at_tile && (fa.has_updates() || (stencil && full_resolution(analysis, i, *at_tile)) ||
                         beside_its_readers(analysis, s, i, *at_tile))) {
    c = *at_tile;
  } else {
    c.kind = ComputeLocation::Kind::kRoot;
  }
  return c;
}

// A drawn location: inlined (less often for a stencil or a Func a reduction reads), at a
// consumer's loop (a stencil sliding a window along a strip in some of the draws), or root.
ComputeLocation drawn_compute(const FuncAnalysis& fa, const std::vector<ComputeLocation>& at,
                              const std::vector<ComputeLocation>& windows, bool consumed_by_reduction, bool stencil,
                              Rng& rng) {
  const bool can_inline = !fa.has_updates() && !fa.is_output;
  ComputeLocation c;
  const double r = static_cast<double>(rng.below(1000)) / 1000.0;
  if (can_inline && r < (stencil ? 0.15 : consumed_by_reduction ? 0.35 : 0.7)) {
    c.kind = ComputeLocation::Kind::kInline;
  } else if (!at.empty() && rng.chance(fa.has_updates() ? 0.6 : 0.5)) {
    c = !windows.empty() && stencil && rng.chance(0.4) ? rng.pick(windows) : rng.pick(at);
  } else {
    c.kind = ComputeLocation::Kind::kRoot;
  }
  return c;
}

}  // namespace

ComputeLocation choose_compute(const Analysis& analysis, const Schedule& schedule, int func,
                               const std::vector<ComputeLocation>& options, Rng* rng) {
  const FuncAnalysis& fa = analysis.funcs[func];
  std::vector<ComputeLocation> at;
  std::vector<ComputeLocation> windows;
  for (const ComputeLocation& o : options) {
    if (o.kind == ComputeLocation::Kind::kAt) (o.sliding() ? windows : at).push_back(o);
  }
  bool consumed_by_reduction = fa.consumers.size() > 1;
  for (const auto& [cf, cstage] : fa.consumers) consumed_by_reduction |= cstage > 0;
  // A stencil producer inlined is recomputed for every point its consumer reads, unless
  // it is as cheap as a boundary condition over an input.
  bool stencil = false;
  for (const auto& [cf, cstage] : fa.consumers) stencil |= reads_a_stencil_of(analysis, cf, cstage, func);
  const bool cheap = cheap_to_recompute(analysis, func);
  stencil = stencil && !cheap;
  // A padded copy of a dot product's activations at root costs a pass over them, and the
  // user's build a fresh allocation per call: `ktune measure
  // bench/suite_lowp/conv3x3_u8s8_relu_requant.json --schedule F` of the heuristic's
  // schedule took 0.13 ms with the padding inlined, 0.25 ms with it at root (2-core EPYC).
  if (cheap && broadcast_into_dot_products(analysis, func)) consumed_by_reduction = false;
  // A lookup table is kept out of line as a stencil producer is.
  stencil = stencil || looked_up(analysis, func);
  if (fa.is_output) {
    ComputeLocation c;
    c.kind = ComputeLocation::Kind::kRoot;
    return c;
  }
  if (!rng) return heuristic_compute(analysis, schedule, func, at, consumed_by_reduction, stencil);
  return drawn_compute(fa, at, windows, consumed_by_reduction, stencil, *rng);
}

}  // namespace ktune::scheduler
