#include "scheduler/image_strips.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "scheduler/channel_loops.h"
#include "scheduler/host_consumer.h"
#include "scheduler/inline_cost.h"
#include "scheduler/isl_context.h"
#include "scheduler/loop_nest.h"
#include "scheduler/root_inlining.h"
#include "scheduler/row_producers.h"
#include "scheduler/stencil_taps.h"
#include "scheduler/strip_row_walks.h"
#include "scheduler/window_folds.h"

namespace ktune::scheduler {
namespace {

// The largest window halo (rows a Func computes beyond its leader's) a group keeps, as a
// share of the strip: past it, the rows recomputed at the top of every strip cost more
// than a pass through memory.
constexpr double kMaxHaloShare = 0.5;

// The most windows one group nests. Halide's bounds inference and LLVM take time
// superlinear in the depth of nested windows: public stencil_chain's 32 windows in one
// group build in 3.8 s, in groups of 11 in 1.4 s, and run 3% slower.
constexpr int kMaxWindowsPerGroup = 12;

// Arithmetic per point past which recomputing a Func costs more than storing and loading it.
constexpr int64_t kCostlyOps = 16;

// An output (or group leader) a strip schedule fits: a pure Func with rows to split.
bool image_shaped(const FuncAnalysis& fa) {
  return !fa.has_updates() && fa.extents.size() >= 2 && fa.extents[1] >= 16 && fa.stages[0].pure_loop(1) != nullptr;
}

// True when Func `f` covers at least half of `leader`'s rows and columns: a stage at the
// leader's resolution (a pyramid level below it is not).
bool at_resolution_of(const FuncAnalysis& f, const FuncAnalysis& leader) {
  return f.extents.size() >= 2 && 2 * f.extents[0] >= leader.extents[0] && 2 * f.extents[1] >= leader.extents[1];
}

// Points of one boundary condition a reader may take before the boundary gets a window of
// its own. Inlined, the likely() of its index makes Halide partition every loop around the
// reader, the strip loop included: the whole strip is compiled twice, and its first and
// last strips gather each of a stencil's points lane by lane.
constexpr size_t kInlinedBoundaryPoints = 4;

// Most distinct points of Func `f` one stage of a reader takes.
size_t most_points_read(const Analysis& analysis, int f) {
  size_t most = 0;
  for (const auto& [reader, stage] : analysis.funcs[f].consumers) {
    std::set<std::string> points;
    for (const ProducerUse& use : analysis.funcs[reader].stages[stage].uses) {
      if (use.func == f) points.insert(use.access);
    }
    most = std::max(most, points.size());
  }
  return most;
}

// A Func that reads one point of a pipeline input with a few operations (a cast), or none
// (weights computed from their coordinates), or through Halide's boundary conditions
// however many (a mirror's index arithmetic costs nothing in the interior, where Halide
// partitions the loops) unless a stencil reads it, and that no reader looks up at data (a
// table, computed once per entry): each window reading it recomputes it for less than a
// copy costs.
bool reads_one_input_point(const Analysis& analysis, int f) {
  const FuncAnalysis& fa = analysis.funcs[f];
  if (fa.has_updates()) return false;
  std::set<std::string> points;
  bool boundary_condition = true;
  for (const ProducerUse& use : fa.stages[0].uses) {
    if (use.func >= 0) return false;
    points.insert(use.access);
    boundary_condition &= use.likely_index;
  }
  if (boundary_condition && most_points_read(analysis, f) > kInlinedBoundaryPoints) return false;
  if (fa.stages[0].arith_ops > kCostlyOps && !boundary_condition) return false;
  for (const auto& [reader, stage] : fa.consumers) {
    if (reads_at_data(analysis.funcs[reader].stages[stage], f)) return false;
  }
  return points.size() <= 1;
}

// True when the relations `accesses` (isl, from a stage's iterations to one Func's points)
// together reach each point at most once.
bool injective_together(const std::vector<std::string>& accesses) {
  thread_local IslContext isl(200000);
  isl.reset_operations();
  try {
    std::optional<isl::map> reads;
    for (const std::string& access : accesses) {
      const isl::map m(isl.ctx(), access);
      reads = reads ? reads->unite(m) : m;
    }
    return reads && reads->is_injective() && !isl.quota_exceeded();
  } catch (const isl::exception&) {
    return false;
  }
}

// True when a stage reads each point of Func `f` at most once over all its iterations and
// calls (an output reading the value and the weight channel of one Func): inlined there, `f`
// recomputes nothing. Remembered by the accesses: the sampler asks for every draw.
bool reads_each_point_once(const StageAnalysis& reader, int f) {
  std::vector<std::string> accesses;
  for (const ProducerUse& use : reader.uses) {
    if (use.func != f) continue;
    if (!use.affine || use.access.empty()) return false;
    accesses.push_back(use.access);
  }
  if (accesses.empty()) return false;
  std::string key;
  for (const std::string& access : accesses) key += access + '\n';
  thread_local std::map<std::string, bool> known;
  if (const auto it = known.find(key); it != known.end()) return it->second;
  if (known.size() > 4096) known.clear();
  return known[key] = injective_together(accesses);
}

// How many lookups a stage makes per entry of table `table` (its iterations over the
// table's points; at least 2: a table read at data is read at some entries more than once).
int64_t lookups_per_entry(const FuncAnalysis& table, const StageAnalysis& reader) {
  int64_t entries = 1;
  for (int64_t e : table.extents) entries *= std::max<int64_t>(1, e);
  return std::max<int64_t>(2, reader.pure_iterations() / entries);
}

// How many times each value of Func `f` would be computed if it were inlined: the points
// its readers read of it, multiplied along readers that are inlined themselves (the most
// over its readers; a table read at data, its lookups per entry). A reader placed already
// is known: producers are placed after them.
int64_t recompute_factor(const Analysis& analysis, const Schedule& schedule, int f) {
  int64_t most = 1;
  for (const auto& [reader, stage] : analysis.funcs[f].consumers) {
    const StageAnalysis& sa = analysis.funcs[reader].stages[stage];
    std::set<std::string> points;
    for (const ProducerUse& use : sa.uses) {
      if (use.func == f) points.insert(use.access);
    }
    int64_t factor = std::max<int64_t>(1, static_cast<int64_t>(points.size()));
    if (factor > 1 && reads_each_point_once(sa, f)) factor = 1;
    if (reads_at_data(sa, f)) factor = std::max(factor, lookups_per_entry(analysis.funcs[f], sa));
    if (schedule.funcs[reader].compute.kind == ComputeLocation::Kind::kInline) {
      factor *= recompute_factor(analysis, schedule, reader);
    }
    most = std::max(most, factor);
  }
  return most;
}

// True when a reader takes one point of Func `f` from several of its own iterations (a
// weight read once per colour channel): inlined there, each of those iterations would
// compute the point again.
bool read_across_a_loop_it_lacks(const Analysis& analysis, int f) {
  for (const auto& [reader, stage] : analysis.funcs[f].consumers) {
    const StageAnalysis& sa = analysis.funcs[reader].stages[stage];
    std::set<std::string> points;
    for (const ProducerUse& use : sa.uses) {
      if (use.func == f) points.insert(use.access);
    }
    if (points.size() == 1 && !reads_each_point_once(sa, f)) return true;
  }
  return false;
}

// A pure Func cheaper to recompute where it is read than to store in a window: a product
// of one point of each producer recomputed at most for the 9 points of one box sum
// (Harris's Ix * Ix; not a table lookup, whose gathers cost more), or one computed once per
// point anyway: by its one reader whatever it costs (a bilateral grid's slice, read at
// each pixel's value and weight channel), by two if it costs a few operations (the box sum
// itself, read at one point by the determinant and by the trace of one row), counting what
// each inlines already.
bool cheaper_inlined(const Analysis& analysis, const Schedule& schedule, int f) {
  const FuncAnalysis& fa = analysis.funcs[f];
  if (fa.has_updates()) return false;
  std::map<int, std::set<std::string>> points;  // producer -> distinct accesses
  for (const ProducerUse& use : fa.stages[0].uses) points[use.func].insert(use.access);
  bool one_point_each = true;
  for (const auto& [producer, accesses] : points) one_point_each &= accesses.size() == 1;
  // Its arithmetic with what it inlines already (a colour pipeline's pointwise stages).
  const int64_t ops = inlined_ops(analysis, schedule, f, 0);
  const int64_t factor = recompute_factor(analysis, schedule, f);
  if (one_point_each && ops <= 4 && factor <= 9 && !gathers(analysis, schedule, f, 0)) return true;
  if (factor > 1 || read_across_a_loop_it_lacks(analysis, f)) return false;
  return fa.consumers.size() == 1 || (fa.consumers.size() == 2 && ops <= kCostlyOps);
}

// An inlined Func that `leader` reads across channels it does not have (a luma ratio
// scaling each of R, G and B) and that costs more than a load and a store: inlined, each
// channel would compute it again, so it is computed once per row instead.
bool broadcast_and_costly(const Analysis& analysis, const Schedule& schedule, int f, int leader) {
  const FuncAnalysis& fa = analysis.funcs[f];
  if (fa.has_updates() || fa.args.size() < 2 || fa.args.size() >= analysis.funcs[leader].args.size()) return false;
  bool read_by_leader = false;
  for (const auto& [reader, stage] : fa.consumers) read_by_leader |= reader == leader;
  return read_by_leader && inlined_ops(analysis, schedule, f, 0) > kCostlyOps;
}


// Bytes of a cache line, to which each row of a window is padded.
constexpr int64_t kCacheLineBytes = 64;

// Values of Func `f` in a cache line: a window padded to it starts each row at the same
// offset within a line, so that its vector loads and stores split no more lines on one row
// than on another. Unpadded, rows of 2594 values (camera_pipe's) start at a new offset each:
// its heuristic ran 1.03x faster padded, a Harris-style corner response 1.09x, a camera
// pipeline 1.02x, a blur chain level (bench/padded_rows.sh).
int64_t cache_line_values(const FuncAnalysis& f) {
  return std::clamp<int64_t>(kCacheLineBytes / std::max(1, f.element_bytes), 2, kMaxRowAlignment);
}

// The pure stage of a window: its rows vectorized by `lanes` where they are that long, its
// channel loops unrolled just outside the vector (channel_loops.h).
std::vector<StageSchedule> window_stages(const FuncAnalysis& fa, int64_t lanes) {
  const StageAnalysis& sa = fa.stages[0];
  const LoopAnalysis* x = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (!x || x->extent < lanes || lanes < 2) return {};
  StageSchedule st;
  st.splits.push_back({x->name, loop_piece(x->name, "_o"), loop_piece(x->name, "_i"), lanes});
  st.vectorize = loop_piece(x->name, "_i");
  std::vector<std::string> channels, others;
  loops_past_rows(sa, channels, others);
  if (channels.empty() || !y) return {st};
  st.order = {st.vectorize};
  const std::vector<std::string> pieces = unrolled_channels(sa, channels, st);
  st.order.insert(st.order.end(), pieces.begin(), pieces.end());
  st.order.push_back(loop_piece(x->name, "_o"));
  st.order.insert(st.order.end(), others.begin(), others.end());
  st.order.push_back(y->name);
  return {st};
}

// A reduction at the leader's resolution that only the leader reads and that sums into each
// of its points separately (non-local means' weights summed over the search window, per
// pixel): along the strip's rows it is as pointwise as the leader, so a strip computes its
// share of it. Not a scan or scatter along the rows, which a strip would cut.
bool sums_per_pixel_of(const Analysis& analysis, int f, int leader) {
  const FuncAnalysis& fa = analysis.funcs[f];
  if (!fa.has_updates() || fa.reduced_dims.size() < 2 || fa.reduced_dims[0] || fa.reduced_dims[1]) return false;
  if (!at_resolution_of(fa, analysis.funcs[leader])) return false;
  for (const auto& [reader, stage] : fa.consumers) {
    if (reader != leader && reader != f) return false;
  }
  return true;
}

// Points at which the one reader of a separable filter's first pass reads it (a 1-2-1
// filter's 3), at most, for the pass to be inlined into it.
constexpr size_t kFirstPassPoints = 3;

// The one reader of Func `f` when `f` is a separable filter's first pass: a Func of a few
// operations of its own (a boundary condition it inlines costs nothing inside the image,
// where Halide partitions the loops) that one reader alone reads, at a few points along
// other dimensions than its own taps; a chain of stencils along one dimension is no such
// pass. -1 otherwise.
int second_pass_of(const Analysis& analysis, int f) {
  const FuncAnalysis& fa = analysis.funcs[f];
  if (fa.has_updates() || fa.consumers.size() != 1 || fa.stages[0].arith_ops > kCostlyOps) return -1;
  const auto [reader, stage] = fa.consumers.front();
  const bool separable =
      most_points_read(analysis, f) <= kFirstPassPoints && taps_across(fa, analysis.funcs[reader].stages[stage]);
  return separable ? reader : -1;
}

// Whether a separable filter's first pass is inlined into its second pass, placed at
// `second`. Where the second is inlined itself (camera_pipe's unsharp mask, into the
// sharpened output, as its authors write it; a depth filter's last level), and where it is
// computed per strip in strips computed whole. Inlined, the first pass is computed three
// times a point but needs no buffer of its own: each buffer of a strip is allocated per
// strip, and where more than 128 KiB of them are freed per strip the C library returns their
// pages, to fault them in again in the next strip.
bool inlines_first_pass(const ComputeLocation& second, const std::string& strip, StripProducers producers) {
  if (second.kind == ComputeLocation::Kind::kInline) return true;
  const bool per_strip = second.kind == ComputeLocation::Kind::kAt && second.loop == strip && !second.sliding();
  return per_strip && producers == StripProducers::kWholeStrips;
}

// What place_producers did: the windows it made, the stencil producers it computes per
// strip instead (StripProducers::kWholeStrips), and the reductions it computes per strip.
struct PlacedProducers {
  int windows = 0;
  int whole_strip_stencils = 0;
  int per_strip_sums = 0;
};

// Places the producers hosted by `leader` (already in strips with loops `row` and `strip`):
// stencil producers at its resolution become windows (or are computed per strip: `producers`)
// but for separable first passes inlined into their second, those too far up the chain lead
// groups of their own (appended to `leaders`), reductions and others hosted at its loops are
// computed per strip, and so are the per-pixel sums only the leader reads.
PlacedProducers place_producers(const Analysis& analysis, Schedule& schedule, int leader, const std::string& row,
                                const std::string& strip, StripProducers producers, std::vector<int>& leaders) {
  const FuncAnalysis& la = analysis.funcs[leader];
  const int64_t rows = schedule.funcs[leader].stages.front().splits[1].factor;
  PlacedProducers placed;
  for (int f = leader - 1; f >= 0; --f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || std::find(leaders.begin(), leaders.end(), f) != leaders.end()) continue;
    if (fs.compute.kind == ComputeLocation::Kind::kInline) {
      if (broadcast_and_costly(analysis, schedule, f, leader)) {
        fs.compute = ComputeLocation{ComputeLocation::Kind::kAt, la.name, 0, row};
        fs.stages = window_stages(fa, fa.stages[0].native_lanes(analysis.target));
      }
      continue;
    }
    const AtHost host = at_host(analysis, schedule, f);
    if (host.func != leader) continue;
    const ComputeLocation per_strip{ComputeLocation::Kind::kAt, la.name, 0, strip};
    if (reads_one_input_point(analysis, f) || cheaper_inlined(analysis, schedule, f)) {
      fs.compute.kind = ComputeLocation::Kind::kInline;
      fs.stages.clear();
      continue;
    }
    if (fa.has_updates() || !at_resolution_of(fa, la)) {
      if (fs.compute.kind == ComputeLocation::Kind::kAt) {
        fs.compute = per_strip;
      } else if (sums_per_pixel_of(analysis, f, leader)) {
        fs.compute = per_strip;
        for (StageSchedule& st : fs.stages) st.parallel.clear();  // the strips are parallel
        ++placed.per_strip_sums;
      }
      continue;
    }
    const bool halo_outgrows_strip =
        static_cast<double>(fa.extents[1] - la.extents[1]) > kMaxHaloShare * static_cast<double>(rows);
    if ((halo_outgrows_strip || placed.windows >= kMaxWindowsPerGroup) && image_shaped(fa)) {
      fs.compute = ComputeLocation{};
      leaders.push_back(f);
      continue;
    }
    const int second_pass = second_pass_of(analysis, f);
    if (second_pass >= 0 && inlines_first_pass(schedule.funcs[second_pass].compute, strip, producers)) {
      fs.compute.kind = ComputeLocation::Kind::kInline;
      fs.stages.clear();
      continue;
    }
    const bool whole_strip = producers == StripProducers::kWholeStrips;
    if (host.innermost == strip || whole_strip) {  // a reader is computed per strip: so is this one
      if (host.innermost != strip) ++placed.whole_strip_stencils;
      fs.compute = per_strip;
      fs.stages = window_stages(fa, fa.stages[0].native_lanes(analysis.target));
      continue;
    }
    const int64_t span = rows_ahead_of_readers(analysis, schedule, f);
    const int64_t fold = span < 0 ? 0 : fold_rows(span + lower_resolution_slack(fa, la), rows);
    fs.compute = ComputeLocation{ComputeLocation::Kind::kAt, la.name, 0, row, strip, fold};
    fs.stages = window_stages(fa, fa.stages[0].native_lanes(analysis.target));
    if (!fs.stages.empty()) fs.compute.row_alignment = cache_line_values(fa);
    ++placed.windows;
  }
  return placed;
}

// Puts `leader` in strips and places its producers; undone for an output where no window
// results, unless `keep_output` (a group leader keeps its strips: it is at root either way).
bool strip_group(const Analysis& analysis, Schedule& schedule, int leader, std::vector<int>& leaders,
                 bool keep_output, int per_core, StripProducers producers) {
  const FuncAnalysis& la = analysis.funcs[leader];
  const int64_t lanes = la.stages[0].native_lanes(analysis.target);
  const int64_t rows = strip_rows(la.extents[1], analysis.target.cores, per_core);
  const std::optional<StageSchedule> stage = strip_stage(la, lanes, rows);
  if (!stage) return false;
  const Schedule before = schedule;
  const size_t known_leaders = leaders.size();
  schedule.funcs[leader].stages = {*stage};
  const std::string row = stage->splits[1].inner, strip = stage->splits[1].outer;
  const PlacedProducers placed = place_producers(analysis, schedule, leader, row, strip, producers, leaders);
  if (placed.windows > 0) walk_rows(analysis, schedule, leader, row, rows_per_walk(analysis, schedule, leader, row));
  const bool fused = placed.windows > 0 || placed.whole_strip_stencils > 0 || placed.per_strip_sums > 0;
  if (fused || !la.is_output || keep_output) return true;
  schedule = before;
  leaders.resize(known_leaders);
  return false;
}

// True when some Func of the pipeline scatters into a grid (a bilateral grid's histogram):
// an image pipeline whose output runs in strips even where no stencil slides.
bool has_grid_scatter(const Analysis& analysis) {
  for (const FuncAnalysis& fa : analysis.funcs) {
    if (scatters_into_grid(fa)) return true;
  }
  return false;
}

}  // namespace

int64_t strip_rows(int64_t rows, int cores, int per_core) {
  int64_t s = 8;
  while (s < 256 && s * 2 * std::max(1, per_core) * std::max(1, cores) <= rows) s *= 2;
  return s;
}

std::optional<StageSchedule> strip_stage(const FuncAnalysis& func, int64_t lanes, int64_t rows) {
  if (!image_shaped(func)) return std::nullopt;
  const StageAnalysis& sa = func.stages[0];
  const LoopAnalysis* x = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (!x || !y || lanes < 2 || x->extent < lanes || y->extent < 2 * rows) return std::nullopt;
  std::vector<std::string> channels, others;
  loops_past_rows(sa, channels, others);
  if (!others.empty()) return std::nullopt;
  StageSchedule st;
  // The last vector and the last strip shift back over the ones before (the Func is at root
  // with no update): a guard would cost a scalar tail and stop the windows sliding.
  st.splits = {{x->name, loop_piece(x->name, "_o"), loop_piece(x->name, "_i"), lanes, Tail::kShiftInwards},
               {y->name, loop_piece(y->name, "_o"), loop_piece(y->name, "_i"), rows, Tail::kShiftInwards}};
  st.order = {st.splits[0].inner};
  const std::vector<std::string> pieces = unrolled_channels(sa, channels, st);
  st.order.insert(st.order.end(), pieces.begin(), pieces.end());
  st.order.push_back(st.splits[0].outer);
  st.order.push_back(st.splits[1].inner);
  st.order.push_back(st.splits[1].outer);
  st.parallel = {st.splits[1].outer};
  st.vectorize = st.splits[0].inner;
  return st;
}

// Every stored pure Func back at root with Halide's default loops, so that the groups are
// found from the readers down (a reader placed first hosts its producers) and no Func is
// left at a loop of a leader's former tiling.
void unplace_pure_funcs(const Analysis& analysis, Schedule& schedule) {
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || fa.has_updates() || fs.compute.kind == ComputeLocation::Kind::kInline) continue;
    if (fs.compute.kind == ComputeLocation::Kind::kAt) fs.stages.clear();
    fs.compute = ComputeLocation{};
  }
}

// Funcs left at root with Halide's default loops (a pyramid level, a Func two groups read)
// run in parallel strips of their own where they have the shape.
void give_strips_to_bare_roots(const Analysis& analysis, Schedule& schedule, int per_core) {
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    FuncSchedule& fs = schedule.funcs[f];
    if (fs.compute.kind != ComputeLocation::Kind::kRoot || !fs.stages.empty()) continue;
    const FuncAnalysis& fa = analysis.funcs[f];
    const int64_t lanes = fa.stages[0].native_lanes(analysis.target);
    if (const auto st = strip_stage(fa, lanes, strip_rows(fa.extents[1], analysis.target.cores, per_core))) {
      fs.stages = {*st};
    }
  }
}

// Boundary conditions left at root whose readers are all computed inside another Func's
// loops (per row of a grid) are inlined there, as strips inline those they host.
void inline_boundary_conditions_of_rows(const Analysis& analysis, Schedule& schedule) {
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || fs.compute.kind != ComputeLocation::Kind::kRoot ||
        !reads_one_input_point(analysis, static_cast<int>(f))) {
      continue;
    }
    bool readers_placed = !fa.consumers.empty();
    for (const auto& [reader, stage] : fa.consumers) {
      readers_placed &= schedule.funcs[reader].compute.kind == ComputeLocation::Kind::kAt;
    }
    if (!readers_placed) continue;
    fs.compute.kind = ComputeLocation::Kind::kInline;
    fs.stages.clear();
  }
}


bool apply_image_strips(const Analysis& analysis, Schedule& schedule, int per_core, StripProducers producers) {
  if (analysis.target.is_gpu() || schedule.funcs.size() != analysis.funcs.size()) return false;
  const Schedule before = schedule;
  unplace_pure_funcs(analysis, schedule);
  std::vector<int> leaders;
  for (int f = static_cast<int>(analysis.funcs.size()) - 1; f >= 0; --f) {
    if (analysis.funcs[f].is_output && image_shaped(analysis.funcs[f])) leaders.push_back(f);
  }
  const bool grid = has_grid_scatter(analysis);
  bool changed = false;
  for (size_t k = 0; k < leaders.size(); ++k) {
    changed |= strip_group(analysis, schedule, leaders[k], leaders, grid, per_core, producers);
  }
  if (!changed) {
    schedule = before;
    return false;
  }
  give_strips_to_bare_roots(analysis, schedule, per_core);
  give_rows_to_grids(analysis, schedule);
  compute_row_producers_per_row(analysis, schedule);
  inline_boundary_conditions_of_rows(analysis, schedule);
  inline_cheap_roots(analysis, schedule);
  return true;
}

}  // namespace ktune::scheduler
