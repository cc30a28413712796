#include "scheduler/gpu_stage_template.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ktune::scheduler {
namespace {

// Splits `loop` so its inner piece (`threads` iterations) becomes a thread loop; a loop no
// longer than `threads` becomes a thread loop whole. The pieces are named after `base`.
void thread_split(StageSchedule& st, const LoopAnalysis& loop, const std::string& base, int64_t threads,
                  std::vector<std::string>& thread_loops, std::vector<std::string>& outer) {
  if (threads >= 2 && threads < loop.extent) {
    st.splits.push_back({loop.name, loop_piece(base, "_o"), loop_piece(base, "_i"), threads});
    thread_loops.push_back(loop_piece(base, "_i"));
    outer.push_back(loop_piece(base, "_o"));
  } else if (threads >= 2 || loop.extent == 1) {
    thread_loops.push_back(loop.name);
  } else {
    outer.push_back(loop.name);
  }
}

}  // namespace

GpuTilingChoice heuristic_gpu_tiling(const StageAnalysis& sa) {
  GpuTilingChoice c;
  const LoopAnalysis* y = sa.pure_loop(1);
  const LoopAnalysis* r = sa.first_reduction();
  c.threads_x = y ? 32 : 128;
  c.threads_y = y ? std::min<int64_t>(8, y->extent) : 1;
  if (r && r->extent >= 8 && r->extent % 4 == 0) c.reduction_split = 4;
  return c;
}

StageSchedule make_gpu_stage(const StageAnalysis& sa, const GpuTilingChoice& c, bool kernel) {
  StageSchedule st;
  st.stage = sa.stage;
  std::vector<const LoopAnalysis*> pure, reduction;
  for (const LoopAnalysis& l : sa.loops) (l.is_reduction ? reduction : pure).push_back(&l);
  if (pure.empty()) return st;

  std::vector<std::string> threads, outer, tile;  // innermost first
  thread_split(st, *pure[0], pure[0]->name, c.threads_x, threads, outer);
  if (pure.size() > 1) {
    const LoopAnalysis& y = *pure[1];
    const int64_t r = c.rows_per_thread;
    if (r >= 2 && r <= 8 && 2 * r <= y.extent) {
      // Rows per thread first; the threads then split what is left of the loop.
      LoopAnalysis rest = y;
      rest.name = loop_piece(y.name, "_t");
      rest.extent = (y.extent + r - 1) / r;
      st.splits.push_back({y.name, rest.name, loop_piece(y.name, "_r"), r});
      tile.push_back(loop_piece(y.name, "_r"));
      st.unroll.push_back(loop_piece(y.name, "_r"));
      thread_split(st, rest, y.name, c.threads_y, threads, outer);
    } else {
      thread_split(st, y, y.name, c.threads_y, threads, outer);
    }
  }
  for (size_t i = 2; i < pure.size(); ++i) outer.push_back(pure[i]->name);
  if (kernel && outer.empty()) {
    // Everything fits in one block's threads: the second loop becomes the block loop, or the
    // only loop is split in two so there is one.
    if (pure.size() > 1 && threads.size() > 1) {
      outer.push_back(threads.back());
      threads.pop_back();
    } else if (pure[0]->extent >= 2 && st.splits.empty() && tile.empty()) {
      int64_t f = 1;
      while (f * 2 < pure[0]->extent) f *= 2;
      st.splits.push_back({pure[0]->name, loop_piece(pure[0]->name, "_o"), loop_piece(pure[0]->name, "_i"), f});
      threads = {loop_piece(pure[0]->name, "_i")};
      outer.insert(outer.begin(), loop_piece(pure[0]->name, "_o"));
      if (pure.size() > 1) threads.push_back(pure[1]->name);
    }
  }

  std::vector<std::string> red;  // innermost first
  for (size_t i = 0; i < reduction.size(); ++i) {
    const LoopAnalysis& r = *reduction[i];
    if (i == 0 && c.reduction_split >= 2 && c.reduction_split < r.extent && c.reduction_split <= 16) {
      st.splits.push_back({r.name, loop_piece(r.name, "_o"), loop_piece(r.name, "_i"), c.reduction_split});
      red.push_back(loop_piece(r.name, "_i"));
      red.push_back(loop_piece(r.name, "_o"));
      st.unroll.push_back(loop_piece(r.name, "_i"));
    } else {
      red.push_back(r.name);
    }
  }
  st.order = tile;
  st.order.insert(st.order.end(), red.begin(), red.end());
  st.order.insert(st.order.end(), threads.begin(), threads.end());
  st.order.insert(st.order.end(), outer.begin(), outer.end());
  st.gpu.threads = threads;
  if (kernel) {
    for (size_t i = 0; i < outer.size() && i < 3; ++i) st.gpu.blocks.push_back(outer[i]);
  }
  return st;
}

}  // namespace ktune::scheduler
