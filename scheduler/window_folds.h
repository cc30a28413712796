// The rows each sliding window of an image strip keeps (Halide's fold_storage): how far a
// Func runs ahead of its readers down the strip, the slack a lower-resolution window needs,
// the power of two that covers them, and the folds widened again after a mutation.
#pragma once

#include <cstdint>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// How many more rows Func `f` covers than the reader that covers fewest: the span of its
// rows one row of the strip reads (a 5-row stencil's reader: 4). A reader at a whole multiple
// of its resolution (a full-resolution image read from the half-resolution planes of a Bayer
// mosaic) counts in rows of `f`. -1 where there is no reader.
int64_t rows_ahead_of_readers(const Analysis& analysis, const Schedule& schedule, int f);

// Rows beyond its readers' span that a window at 1 / `ratio` of its host's resolution needs
// per iteration of a host row: Halide bounds the rows one host row reads of it loosely (from
// row y - 1 to y + 1 over the ratio), up to `ratio` more. 0 at the host's resolution.
int64_t lower_resolution_slack(const FuncAnalysis& window, const FuncAnalysis& host);

// The rows a window keeps: the least power of two covering the `span` + 1 rows its readers
// read, where the row in flight is one (Halide does not fold a Func read rows ahead of the
// loop by itself, nor one at a lower resolution than its host, and a strip's whole buffer
// is one the C library maps afresh per call). A row more doubles the fold of a reader of
// 8 rows: a running maximum's last vertical pass then keeps 128 KiB per strip where 64 hold
// what is read, and runs 1.2x slower. 0 where the strip is no longer than that, or nothing
// reads it.
int64_t fold_rows(int64_t span, int64_t strip_rows);

// Widens each window's fold_rows to what its readers and its compute loop now need: a
// mutation that inlines a reader or splits the strip's rows again would otherwise leave a
// fold that fails Halide's run-time check. Only grows folds; never adds one, and drops
// the fold of a Func that no longer slides.
void refresh_window_folds(const Analysis& analysis, Schedule& schedule);

}  // namespace ktune::scheduler
