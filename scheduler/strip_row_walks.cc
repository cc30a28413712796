#include "scheduler/strip_row_walks.h"

#include <algorithm>

#include "scheduler/window_folds.h"

namespace ktune::scheduler {

int64_t vertical_ratio(const FuncAnalysis& window, const FuncAnalysis& host) {
  if (window.extents.size() < 2 || host.extents.size() < 2 || window.extents[1] <= 0) return 1;
  return std::max<int64_t>(1, (host.extents[1] + window.extents[1] / 2) / window.extents[1]);
}

int64_t rows_per_walk(const Analysis& analysis, const Schedule& schedule, int leader, const std::string& row) {
  const FuncAnalysis& host = analysis.funcs[leader];
  int64_t rows = 1;
  for (size_t f = 0; f < schedule.funcs.size() && f < analysis.funcs.size(); ++f) {
    const ComputeLocation& c = schedule.funcs[f].compute;
    if (!c.sliding() || c.consumer != host.name || c.loop != row) continue;
    rows = std::max(rows, vertical_ratio(analysis.funcs[f], host));
  }
  return rows;
}

std::string walk_rows(const Analysis& analysis, Schedule& schedule, int leader, const std::string& row, int64_t rows) {
  const FuncAnalysis& host = analysis.funcs[leader];
  StageSchedule& st = schedule.funcs[leader].stages.front();
  const auto row_split = std::find_if(st.splits.begin(), st.splits.end(),
                                      [&](const LoopSplit& s) { return s.inner == row; });
  if (rows < 2 || row_split == st.splits.end() || row_split->factor % rows != 0) return row;
  const std::string walk = loop_piece(row_split->loop, "_w"), in_walk = loop_piece(row_split->loop, "_p");
  // Whole walks of a shifted strip: no tail, so the tail strategy never applies.
  st.splits.push_back({row, walk, in_walk, rows, Tail::kShiftInwards});
  const auto at_row = std::find(st.order.begin(), st.order.end(), row);
  if (at_row != st.order.end()) st.order.insert(st.order.erase(at_row), {in_walk, walk});
  for (FuncSchedule& fs : schedule.funcs) {
    if (fs.compute.kind == ComputeLocation::Kind::kAt && fs.compute.consumer == host.name && fs.compute.loop == row) {
      fs.compute.loop = walk;
    }
  }
  refresh_window_folds(analysis, schedule);
  return walk;
}

}  // namespace ktune::scheduler
