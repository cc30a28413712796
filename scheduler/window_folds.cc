#include "scheduler/window_folds.h"

#include <algorithm>
#include <limits>
#include <string>

#include "scheduler/loop_nest.h"
#include "scheduler/strip_row_walks.h"

namespace ktune::scheduler {
namespace {

// The fewest rows a Func computes that reads Func `f`, directly or through inlined Funcs
// (Harris's box sum reads Ix through the inlined Ix * Ix); -1 where one has no rows.
int64_t fewest_reader_rows(const Analysis& analysis, const Schedule& schedule, int f) {
  int64_t fewest = std::numeric_limits<int64_t>::max();
  for (const auto& [reader, stage] : analysis.funcs[f].consumers) {
    const FuncAnalysis& ra = analysis.funcs[reader];
    if (ra.extents.size() < 2) return -1;
    fewest = std::min(fewest, ra.extents[1]);
    if (schedule.funcs[reader].compute.kind != ComputeLocation::Kind::kInline) continue;
    const int64_t through = fewest_reader_rows(analysis, schedule, reader);
    if (through < 0) return -1;
    fewest = std::min(fewest, through);
  }
  return fewest;
}

// Rows of its host's second pure loop that one iteration of `at.loop` covers (the pieces of
// that loop inside it: 1 for a strip's row loop; more where the rows are split again).
int64_t rows_per_iteration(const Analysis& analysis, const Schedule& schedule, const ComputeLocation& at) {
  const int host = analysis.index_of(at.consumer);
  const FuncSchedule* hs = schedule.find(at.consumer);
  if (host < 0 || !hs) return 1;
  const StageAnalysis& sa = analysis.funcs[host].stages[at.consumer_stage];
  const LoopAnalysis* y = sa.pure_loop(1);
  std::string error;
  const auto nest = build_loop_nest(sa, hs->stage_or_empty(at.consumer_stage), &error);
  if (!y || !nest || nest->position(at.loop) < 0) return 1;
  int64_t rows = 1;
  for (int p = 0; p < nest->position(at.loop); ++p) {
    if (nest->loops[p].origin == y->name) rows *= nest->loops[p].extent;
  }
  return rows;
}

// Rows beyond one that the readers of window `f` compute per iteration of its loop: a reader
// computed whole at a loop of its host without sliding down the rows (a mutation's window
// along a row's columns) computes its own span of rows each time, all of them read from `f`.
int64_t rows_of_unslid_readers(const Analysis& analysis, const Schedule& schedule, int f) {
  int64_t most = 0;
  for (const auto& [reader, stage] : analysis.funcs[f].consumers) {
    const ComputeLocation& rc = schedule.funcs[reader].compute;
    if (rc.kind != ComputeLocation::Kind::kAt) continue;
    ComputeLocation stored = rc;
    if (!rc.store_loop.empty()) stored.loop = rc.store_loop;
    const bool slides_down_rows =
        rows_per_iteration(analysis, schedule, stored) > rows_per_iteration(analysis, schedule, rc);
    if (slides_down_rows) continue;
    most = std::max(most, rows_ahead_of_readers(analysis, schedule, reader));
  }
  return most;
}

}  // namespace

int64_t rows_ahead_of_readers(const Analysis& analysis, const Schedule& schedule, int f) {
  int64_t fewest = fewest_reader_rows(analysis, schedule, f);
  if (fewest < 0 || fewest == std::numeric_limits<int64_t>::max()) return -1;
  const int64_t rows = analysis.funcs[f].extents[1];
  if (fewest <= rows || rows <= 0) return rows - fewest;
  const int64_t ratio = (fewest + rows / 2) / rows;
  return rows - (fewest + ratio - 1) / ratio;
}

int64_t lower_resolution_slack(const FuncAnalysis& window, const FuncAnalysis& host) {
  const int64_t ratio = vertical_ratio(window, host);
  return ratio > 1 ? ratio : 0;
}

int64_t fold_rows(int64_t span, int64_t strip_rows) {
  if (span < 0) return 0;
  int64_t fold = 2;
  while (fold < span + 1) fold *= 2;
  return fold < strip_rows ? fold : 0;
}

void refresh_window_folds(const Analysis& analysis, Schedule& schedule) {
  if (schedule.funcs.size() != analysis.funcs.size()) return;
  for (size_t f = 0; f < schedule.funcs.size(); ++f) {
    ComputeLocation& c = schedule.funcs[f].compute;
    if (!c.sliding()) c.fold_rows = 0;  // a mutation moved it out of its window
    if (c.fold_rows == 0) continue;
    const int64_t span = rows_ahead_of_readers(analysis, schedule, static_cast<int>(f));
    const int host = analysis.index_of(c.consumer);
    if (span < 0 || host < 0) {
      c.fold_rows = 0;
      continue;
    }
    const int64_t needed = span + rows_per_iteration(analysis, schedule, c) - 1 +
                           rows_of_unslid_readers(analysis, schedule, static_cast<int>(f)) +
                           lower_resolution_slack(analysis.funcs[f], analysis.funcs[host]);
    c.fold_rows = std::max(c.fold_rows, fold_rows(needed, std::numeric_limits<int64_t>::max()));
  }
}

}  // namespace ktune::scheduler
