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

}  // namespace

StageSchedule make_stage(const StageAnalysis& sa, const TilingChoice& c) {
  StageSchedule st;
  st.stage = sa.stage;
  std::vector<const LoopAnalysis*> pure, reduction;
  for (const LoopAnalysis& l : sa.loops) (l.is_reduction ? reduction : pure).push_back(&l);

  std::vector<std::string> inner, middle, outer;  // each innermost first
  std::string vectorized;
  if (!pure.empty()) {
    const LoopAnalysis& v = *pure[0];
    const int64_t w = c.vector_width;
    if (w >= 2 && w <= v.extent && w <= kMaxVectorWidth && !v.carries_dependence) {
      if (c.inner_tile > w && c.inner_tile <= v.extent && c.inner_tile % w == 0 && c.inner_tile / w >= 2) {
        // Innermost split first, then its outer piece: Halide 14 drops the bounds guard of
        // an outer split when its inner piece is split again and vectorized.
        st.splits.push_back({v.name, loop_piece(v.name, "_t"), loop_piece(v.name, "_i"), w});
        st.splits.push_back({loop_piece(v.name, "_t"), loop_piece(v.name, "_o"), loop_piece(v.name, "_m"), c.inner_tile / w});
        middle.push_back(loop_piece(v.name, "_m"));
        outer.push_back(loop_piece(v.name, "_o"));
        inner.push_back(loop_piece(v.name, "_i"));
        vectorized = loop_piece(v.name, "_i");
      } else {
        // Split even when the vector covers the loop: a Func computed per tile of a consumer
        // may only vectorize a split piece (validate_vector_width.cc).
        st.splits.push_back({v.name, loop_piece(v.name, "_o"), loop_piece(v.name, "_i"), w});
        inner.push_back(loop_piece(v.name, "_i"));
        outer.push_back(loop_piece(v.name, "_o"));
        vectorized = loop_piece(v.name, "_i");
      }
    } else {
      inner.push_back(v.name);
    }
  }
  if (pure.size() > 1) {
    const size_t outer_before = outer.size();
    tile_loop(*pure[1], c.second_tile, c.unroll_second, st, inner, outer);
    if (c.whole_rows && outer.size() > outer_before && !inner.empty() && inner.back() == loop_piece(pure[1]->name, "_i")) {
      // The row's inner piece goes just outside the first loop's outer piece.
      inner.pop_back();
      outer.insert(outer.begin() + static_cast<std::ptrdiff_t>(outer_before), loop_piece(pure[1]->name, "_i"));
      st.unroll.erase(std::remove(st.unroll.begin(), st.unroll.end(), loop_piece(pure[1]->name, "_i")), st.unroll.end());
    }
  }
  if (pure.size() > 2) tile_loop(*pure[2], c.third_tile, c.unroll_third, st, inner, outer);
  for (size_t i = 3; i < pure.size(); ++i) outer.push_back(pure[i]->name);
  if (c.panels) {
    const auto panel = std::find(outer.begin(), outer.end(), loop_piece(pure[0]->name, "_o"));
    if (panel != outer.end()) std::rotate(panel, panel + 1, outer.end());
  }

  std::vector<std::string> red;  // reduction pieces, innermost first
  std::string red_split_inner, red_split_outer;
  for (size_t i = 0; i < reduction.size(); ++i) {
    const LoopAnalysis& r = *reduction[i];
    if (i == 0 && c.reduction_split >= 2 && c.reduction_split < r.extent) {
      red_split_inner = loop_piece(r.name, "_i");
      red_split_outer = loop_piece(r.name, "_o");
      st.splits.push_back({r.name, red_split_outer, red_split_inner, c.reduction_split});
      red.push_back(red_split_inner);
      red.push_back(red_split_outer);
    } else {
      red.push_back(r.name);
    }
  }

  // Halide reorders the reduction loops of an associative update, where the order cannot
  // change the result (validate_structure.cc).
  if (c.reverse_reductions && sa.rfactor_ok && red_split_inner.empty()) std::reverse(red.begin(), red.end());

  if (c.rfactor && !red_split_inner.empty() && sa.rfactor_ok) {
    st.rfactor = RFactor{*c.rfactor ? red_split_inner : red_split_outer, *c.rfactor};
    st.unroll.clear();
    // Halide's order stays; parallelize the outermost pure loop if asked.
    if (c.parallel_loops > 0 && !pure.empty() && !pure.back()->carries_dependence) {
      st.parallel.push_back(pure.back()->name);
    }
    // Splits of pure loops would leave pieces in Halide's order; keep only the reduction split.
    std::vector<LoopSplit> kept;
    for (const LoopSplit& s : st.splits) {
      if (s.loop == reduction[0]->name) kept.push_back(s);
    }
    st.splits = kept;
    if (!st.parallel.empty() && pure.size() > 0) st.parallel = {pure.back()->name};
    return st;
  }

  std::vector<std::string> order = inner;
  if (!red.empty() && c.reduction_inside_tiles) {
    // [inner tile] [reduction inner piece] [middle] [rest of the reduction] [outer tiles]
    if (!red_split_inner.empty()) {
      order.push_back(red[0]);
      order.insert(order.end(), middle.begin(), middle.end());
      order.insert(order.end(), red.begin() + 1, red.end());
    } else {
      order.insert(order.end(), red.begin(), red.end());
      order.insert(order.end(), middle.begin(), middle.end());
    }
  } else if (!red.empty()) {
    order.insert(order.begin(), red.begin(), red.end());
    order.insert(order.end(), middle.begin(), middle.end());
    vectorized.clear();  // the reduction is innermost
  } else {
    order.insert(order.end(), middle.begin(), middle.end());
  }
  order.insert(order.end(), outer.begin(), outer.end());
  st.order = order;
  st.vectorize = vectorized;
  // The outermost loops, fused; where they all have one iteration (a batch of one image),
  // the next loop in too, so a batch of one still runs its channels or rows in parallel.
  bool iterates = false;
  for (size_t i = 0; i < order.size(); ++i) {
    const bool wanted = static_cast<int>(i) < c.parallel_loops || (!st.parallel.empty() && !iterates);
    if (!wanted) break;
    const std::string& loop = order[order.size() - 1 - i];
    bool is_pure = false, single = false;
    for (const LoopAnalysis* p : pure) {
      is_pure |= loop.rfind(loop_identifier(p->name), 0) == 0 || loop == p->name;
      single |= loop == p->name && p->extent == 1;
    }
    bool is_red = false;
    for (const std::string& r : red) is_red |= r == loop;
    if (!is_pure || is_red || loop == st.vectorize || carries_dependence(pure, loop)) break;
    st.parallel.push_back(loop);
    iterates |= !single;
  }
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
