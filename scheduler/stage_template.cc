#include "scheduler/stage_template.h"

#include <algorithm>

namespace ktune::scheduler {
namespace {

// Splits `loop` by `tile` into an inner piece (unrolled when asked: a register tile) and an
// outer one; a tile that does not fit leaves the loop whole among the outer loops.
void tile_loop(const LoopAnalysis& loop, int64_t tile, bool unroll, StageSchedule& st, std::vector<std::string>& inner,
               std::vector<std::string>& outer) {
  if (tile < 2 || tile >= loop.extent) {
    outer.push_back(loop.name);
    return;
  }
  st.splits.push_back({loop.name, loop_piece(loop.name, "_o"), loop_piece(loop.name, "_i"), tile});
  inner.push_back(loop_piece(loop.name, "_i"));
  outer.push_back(loop_piece(loop.name, "_o"));
  if (unroll && tile <= 16) st.unroll.push_back(loop_piece(loop.name, "_i"));
}

// True when `piece` is `loop` or one of the pieces make_stage splits it into.
bool piece_of(const std::string& piece, const std::string& loop) {
  if (piece == loop) return true;
  for (const char* suffix : {"_o", "_i", "_t", "_m"}) {
    if (piece == loop_piece(loop, suffix)) return true;
  }
  return false;
}

// True when `piece` comes from a loop of `loops` that carries a dependence (it may run
// neither in parallel nor vectorized).
bool carries_dependence(const std::vector<const LoopAnalysis*>& loops, const std::string& piece) {
  for (const LoopAnalysis* l : loops) {
    if (l->carries_dependence && piece_of(piece, l->name)) return true;
  }
  return false;
}

// The loop pieces make_stage builds a stage's order from, each list innermost first.
struct StagePieces {
  std::vector<const LoopAnalysis*> pure, reduction;  // the stage's loops, innermost first
  std::vector<std::string> inner, middle, outer;     // pieces of the pure loops
  std::string vectorized;                            // the vectorized piece, if any
  std::vector<std::string> red;                      // reduction pieces
  std::string red_split_inner, red_split_outer;      // pieces of the split reduction loop, if split
};

// The innermost pure loop: split by the vector width (and by an inner tile around it where
// asked), its inner piece vectorized; whole when it cannot be vectorized.
void split_vector_loop(const TilingChoice& c, StageSchedule& st, StagePieces& p) {
  const LoopAnalysis& v = *p.pure[0];
  const int64_t w = c.vector_width;
  if (w < 2 || w > v.extent || w > kMaxVectorWidth || v.carries_dependence) {
    p.inner.push_back(v.name);
    return;
  }
  if (c.inner_tile > w && c.inner_tile <= v.extent && c.inner_tile % w == 0 && c.inner_tile / w >= 2) {
    // Innermost split first, then its outer piece: Halide 14 drops the bounds guard of
    // an outer split when its inner piece is split again and vectorized.
    st.splits.push_back({v.name, loop_piece(v.name, "_t"), loop_piece(v.name, "_i"), w});
    st.splits.push_back({loop_piece(v.name, "_t"), loop_piece(v.name, "_o"), loop_piece(v.name, "_m"), c.inner_tile / w});
    p.middle.push_back(loop_piece(v.name, "_m"));
    p.outer.push_back(loop_piece(v.name, "_o"));
    p.inner.push_back(loop_piece(v.name, "_i"));
  } else {
    // Split even when the vector covers the loop: a Func computed per tile of a consumer
    // may only vectorize a split piece (validate_vector_width.cc).
    st.splits.push_back({v.name, loop_piece(v.name, "_o"), loop_piece(v.name, "_i"), w});
    p.inner.push_back(loop_piece(v.name, "_i"));
    p.outer.push_back(loop_piece(v.name, "_o"));
  }
  p.vectorized = loop_piece(v.name, "_i");
}

// The second pure loop tiled; with whole_rows, its inner piece goes just outside the first
// loop's outer piece (and is not unrolled).
void tile_second_loop(const TilingChoice& c, StageSchedule& st, StagePieces& p) {
  const LoopAnalysis& row = *p.pure[1];
  const size_t outer_before = p.outer.size();
  tile_loop(row, c.second_tile, c.unroll_second, st, p.inner, p.outer);
  if (c.whole_rows && p.outer.size() > outer_before && !p.inner.empty() && p.inner.back() == loop_piece(row.name, "_i")) {
    p.inner.pop_back();
    p.outer.insert(p.outer.begin() + static_cast<std::ptrdiff_t>(outer_before), loop_piece(row.name, "_i"));
    st.unroll.erase(std::remove(st.unroll.begin(), st.unroll.end(), loop_piece(row.name, "_i")), st.unroll.end());
  }
}

// The pure loops into inner, middle and outer pieces: the vector loop, the second and
// third tiles, the rest whole and outer; with panels, the first loop's outer piece outermost.
void split_pure_loops(const TilingChoice& c, StageSchedule& st, StagePieces& p) {
  if (!p.pure.empty()) split_vector_loop(c, st, p);
  if (p.pure.size() > 1) tile_second_loop(c, st, p);
  if (p.pure.size() > 2) tile_loop(*p.pure[2], c.third_tile, c.unroll_third, st, p.inner, p.outer);
  for (size_t i = 3; i < p.pure.size(); ++i) p.outer.push_back(p.pure[i]->name);
  if (c.panels) {
    const auto panel = std::find(p.outer.begin(), p.outer.end(), loop_piece(p.pure[0]->name, "_o"));
    if (panel != p.outer.end()) std::rotate(panel, panel + 1, p.outer.end());
  }
}

// The reduction loops into pieces: the innermost one split when asked, the others whole;
// an associative update's unsplit reduction loops reversed when asked (Halide reorders
// them where the order cannot change the result: validate_structure.cc).
void split_reduction_loops(const StageAnalysis& sa, const TilingChoice& c, StageSchedule& st, StagePieces& p) {
  for (size_t i = 0; i < p.reduction.size(); ++i) {
    const LoopAnalysis& r = *p.reduction[i];
    if (i == 0 && c.reduction_split >= 2 && c.reduction_split < r.extent) {
      p.red_split_inner = loop_piece(r.name, "_i");
      p.red_split_outer = loop_piece(r.name, "_o");
      st.splits.push_back({r.name, p.red_split_outer, p.red_split_inner, c.reduction_split});
      p.red.push_back(p.red_split_inner);
      p.red.push_back(p.red_split_outer);
    } else {
      p.red.push_back(r.name);
    }
  }
  if (c.reverse_reductions && sa.rfactor_ok && p.red_split_inner.empty()) std::reverse(p.red.begin(), p.red.end());
}

// An rfactor of the split reduction: Halide's order stays, only the reduction split is
// kept (splits of pure loops would leave pieces in Halide's order), and the outermost pure
// loop runs in parallel where asked.
void make_rfactor_stage(const TilingChoice& c, StageSchedule& st, const StagePieces& p) {
  st.rfactor = RFactor{*c.rfactor ? p.red_split_inner : p.red_split_outer, *c.rfactor};
  st.unroll.clear();
  if (c.parallel_loops > 0 && !p.pure.empty() && !p.pure.back()->carries_dependence) {
    st.parallel.push_back(p.pure.back()->name);
  }
  std::vector<LoopSplit> kept;
  for (const LoopSplit& s : st.splits) {
    if (s.loop == p.reduction[0]->name) kept.push_back(s);
  }
  st.splits = kept;
  if (!st.parallel.empty() && p.pure.size() > 0) st.parallel = {p.pure.back()->name};
}

// The loop order, innermost first: [inner tile] [reduction inner piece] [middle] [rest of
// the reduction] [outer tiles] with the reduction inside the tiles, else the reduction
// innermost (and nothing vectorized).
std::vector<std::string> order_loops(const TilingChoice& c, StagePieces& p) {
  std::vector<std::string> order = p.inner;
  if (!p.red.empty() && c.reduction_inside_tiles) {
    if (!p.red_split_inner.empty()) {
      order.push_back(p.red[0]);
      order.insert(order.end(), p.middle.begin(), p.middle.end());
      order.insert(order.end(), p.red.begin() + 1, p.red.end());
    } else {
      order.insert(order.end(), p.red.begin(), p.red.end());
      order.insert(order.end(), p.middle.begin(), p.middle.end());
    }
  } else if (!p.red.empty()) {
    order.insert(order.begin(), p.red.begin(), p.red.end());
    order.insert(order.end(), p.middle.begin(), p.middle.end());
    p.vectorized.clear();  // the reduction is innermost
  } else {
    order.insert(order.end(), p.middle.begin(), p.middle.end());
  }
  order.insert(order.end(), p.outer.begin(), p.outer.end());
  return order;
}

// The outermost loops, fused; where they all have one iteration (a batch of one image),
// the next loop in too, so a batch of one still runs its channels or rows in parallel.
void parallelize_outer_loops(const TilingChoice& c, StageSchedule& st, const StagePieces& p) {
  const std::vector<std::string>& order = st.order;
  bool iterates = false;
  for (size_t i = 0; i < order.size(); ++i) {
    const bool wanted = static_cast<int>(i) < c.parallel_loops || (!st.parallel.empty() && !iterates);
    if (!wanted) break;
    const std::string& loop = order[order.size() - 1 - i];
    bool is_pure = false, single = false;
    for (const LoopAnalysis* l : p.pure) {
      is_pure |= loop.rfind(loop_identifier(l->name), 0) == 0 || loop == l->name;
      single |= loop == l->name && l->extent == 1;
    }
    bool is_red = false;
    for (const std::string& r : p.red) is_red |= r == loop;
    if (!is_pure || is_red || loop == st.vectorize || carries_dependence(p.pure, loop)) break;
    st.parallel.push_back(loop);
    iterates |= !single;
  }
}

}  // namespace

StageSchedule make_stage(const StageAnalysis& sa, const TilingChoice& c) {
  StageSchedule st;
  st.stage = sa.stage;
  StagePieces pieces;
  for (const LoopAnalysis& l : sa.loops) (l.is_reduction ? pieces.reduction : pieces.pure).push_back(&l);
  split_pure_loops(c, st, pieces);
  split_reduction_loops(sa, c, st, pieces);
  if (c.rfactor && !pieces.red_split_inner.empty() && sa.rfactor_ok) {
    make_rfactor_stage(c, st, pieces);
    return st;
  }
  st.order = order_loops(c, pieces);
  st.vectorize = pieces.vectorized;
  parallelize_outer_loops(c, st, pieces);
  return st;
}

void move_innermost_among_reductions(const StageAnalysis& stage, const std::string& loop, StageSchedule& st) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < st.order.size(); ++i) {
    const LoopAnalysis* l = stage.find(st.order[i]);
    if (l && l->is_reduction) positions.push_back(i);
  }
  const auto at = std::find(st.order.begin(), st.order.end(), loop);
  if (positions.empty() || at == st.order.end()) return;
  std::rotate(st.order.begin() + static_cast<std::ptrdiff_t>(positions.front()), at, at + 1);
}

}  // namespace ktune::scheduler
