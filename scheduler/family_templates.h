// The stage schedules a performance engineer writes for four op families, recognised from
// the analysis (not from op names, so a Generator's pipeline gets them too) and adapted to
// the shape and the target. The heuristic schedule starts from them and the sampler draws
// them, so tuning starts where the expert schedules of bench/expert/ are:
//   - a row reduction (softmax's maximum, layernorm's mean) computed per block of rows:
//     rfactor of the reduction's vector-wide piece, partial results made beside the row;
//   - a column reduction (a column sum) at root: chunks of rows in parallel, each streaming
//     whole rows, four per pass, into a vector of partial sums;
//   - a matmul accumulator per tile of its consumer: four vectors by four rows held in
//     registers (two by four with 16 registers), the reduction blocked, an operand read
//     across its rows packed transposed (per column panel or per batch of the consumer
//     where it walks them, else at root), one read along its rows packed per column panel
//     of the consumer;
//   - a convolution accumulator (conv_templates.h).
#pragma once

#include <algorithm>
#include <optional>

#include "scheduler/analysis.h"
#include "scheduler/conv_templates.h"
#include "scheduler/schedule.h"
#include "scheduler/stage_template.h"

namespace ktune::scheduler {

// An associative update whose innermost reduction loop walks the contiguous dimension of
// every read that it indexes, each of which the innermost pure loop indexes too (the row)
// but never along its contiguous dimension, and that is long enough (four vectors) to be
// worth splitting.
bool is_row_reduction(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);
StageSchedule row_reduction_stage(const StageAnalysis& stage, const TargetInfo& target);

// An associative update with one reduction loop, over which every read it indexes walks a
// dimension other than the contiguous one, while the Func's one pure loop walks the contiguous one.
bool is_column_reduction(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);
StageSchedule column_reduction_stage(const StageAnalysis& stage, const TargetInfo& target);

// An associative update with one reduction loop and two or more pure loops, reading one
// operand that the innermost pure loop does not index (reused across a vector) and one
// that it does (a row of B, or a row of K, which a pack makes contiguous).
bool is_matmul_update(const FuncAnalysis& func, const StageAnalysis& stage);
// Vectors across x in the register tile of a matmul's update: 4 with 32 registers (of 16
// accumulators, 4 rows), 2 with 16. `ktune bench SPEC --methods expert,onednn --expert-dir
// DIR`, DIR holding the expert schedule with its tile at 4 x 4, then at 2 x 8 (the gemm and
// mlp experts of commit 0b248ed), in turns on an Intel Xeon (AVX-512), gave oneDNN's time
// over the expert's: mlp_gelu 1.02 and 0.85 (means of five runs), gemm_1024 0.97 and 0.96,
// bmm_scores 0.77 and 0.59, 0.86 and 0.62 (two runs).
inline int64_t matmul_register_vectors(const TargetInfo& target) { return target.vector_registers >= 32 ? 4 : 2; }
// Rows of a register tile of `vectors` vectors across x: half the register file in accumulators.
inline int64_t matmul_tile_rows(int64_t vectors, const TargetInfo& target) {
  return std::max<int64_t>(1, target.vector_registers / 2 / std::max<int64_t>(1, vectors));
}
// Rows of the register tile of matmul_register_vectors: 4 on either target.
inline int64_t matmul_register_rows(const TargetInfo& target) {
  return matmul_tile_rows(matmul_register_vectors(target), target);
}
// Vectors across x in the register tile of a matmul over `x_extent` columns:
// matmul_register_vectors, but 2 where the columns are fewer than two such tiles, no whole
// number of them, and tiles of two vectors compute fewer columns (attention over 77 keys: 96
// columns, not 128; two tiles of four vectors overlap by 51). `ktune bench
// bench/suite_shapes/bmm_seq77.json --db t.db --methods ktune-heuristic,expert,onednn
// --expert-dir DIR --rounds 9`, DIR holding the heuristic of before (4 x 4), timed this one
// (2 x 8) at 0.0664 and 0.0681 ms, that at 0.0726 and 0.0751, oneDNN at 0.0622 and 0.0616 (two
// runs). Tiles of 3 vectors, 96 columns too, but the second starting at column 29, timed slower
// than 4 x 4 by 4 or 7 rows.
int64_t matmul_tile_vectors(int64_t x_extent, int64_t lanes, const TargetInfo& target);
// The update's reduction is blocked by kReductionBlock when longer than two blocks (a
// panel of the x operand stays in L1 across the tile); shorter, one register tile sums it
// whole.
inline constexpr int64_t kReductionBlock = 128;
inline bool matmul_reduction_blocked(int64_t reduction_extent) { return reduction_extent > 2 * kReductionBlock; }
StageSchedule matmul_update_stage(const StageAnalysis& stage, const TargetInfo& target);
// Where the target has a dot-product instruction for the stage's operands (VNNI for 8-bit
// ones), the innermost reduction piece of `st` vectorized inside its pure vector
// (vector_reduce.h); `st` unchanged otherwise.
void add_dot_products(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target, StageSchedule& st);
// Column panels of a matmul's consumer: kPanelVectors vectors wide, walked down blocks of
// kPanelRows rows (one block where there are fewer than two). They fit a consumer of two
// loops with eight panels or more across, however few its rows: a product of 8 rows in
// parallel by rows streams all of B once per row (`ktune
// bench bench/suite_shapes/mlp_batch8.json --db t.db --methods
// ktune-heuristic,expert,Adams2019,onednn --expert-dir DIR --rounds 5`, DIR holding the
// heuristic of before, in parallel by rows: this one 0.163 ms, that 0.538, Adams2019 0.525,
// oneDNN 0.197).
inline constexpr int64_t kPanelVectors = 4;
inline constexpr int64_t kPanelRows = 32;
// True when column panels over `rows` rows are walked down blocks of kPanelRows (two or more):
// the consumer's rows are split, and a panel's operand is worth packing.
inline bool panels_walk_row_blocks(int64_t rows) { return rows >= 2 * kPanelRows; }
bool column_panels_fit(const StageAnalysis& consumer, const TargetInfo& target);
// True when `st` walks `consumer` in column panels: the outer piece of its innermost pure
// loop ("x_o") is outermost in its order.
bool walks_column_panels(const StageAnalysis& consumer, const StageSchedule& st);
// The tiling of the Func that reads a matmul accumulator pointwise: tiles of 16 vectors by
// 32 rows, the accumulator computed per tile (at "x_o"); where the columns are no whole
// number of tiles, one split of at most a panel's width vectorized whole, whose last tile
// shifts inwards (nested shifted splits would leave it short, the accumulator's width
// unknown and every tile's update on Halide's general path).
// Where the accumulator's reduction (`reduction_extent` long) is not blocked, one register
// tile: its rows, and its vectors across x in one split vectorized whole. Each accumulator
// row is then summed once, written from the registers and read back from L1 at once
// (attention's 64-long dot products: `ktune bench bench/suite/bmm_scores.json --db t.db
// --methods ktune-heuristic,expert`, the expert being the heuristic of then with its tiles
// at 4 rows, timed it 1.09-1.18x faster than at 32 rows in four runs, --rounds 5 and 9), and
// the update walks its region with no loop over tiles inside it (a 1x1 convolution of 128
// channels after a depthwise one: `ktune measure --generator LIB:ktune_depthwise_separable
// --schedule F --threads 2` timed F, the heuristic with its output in tiles of 8 vectors of
// channels by 4 pixels, at 3.26 ms, and in tiles of 4 vectors at 1.17 ms).
// With `panels` where they fit: column panels in parallel, the accumulator computed per
// block of rows (at "y_o"). With the operand read along the panel packed per panel
// (panel_operand_pack), `ktune bench bench/suite/gemm_1024.json bench/suite/mlp_gelu.json
// --methods ktune,ktune-heuristic,onednn` on a database of a 100-minute run (whose bests
// were the tiles of 256 by 32) timed this heuristic at 5.74 and 4.52 ms, the tiles at 6.28
// and 4.80, oneDNN at 6.17 and 4.93.
TilingChoice matmul_consumer_choice(const StageAnalysis& consumer, int64_t reduction_extent, const TargetInfo& target,
                                   bool panels);
// The pack of the operand a matmul reads along its consumer's column panels (B's rows), in
// its own order per panel: the panel's rows are then contiguous, not a row of B apart.
// Only for a rank-2 input whose host's outermost loop is a panel ("x_o", outermost), and a
// product of two blocks of rows or more: a panel read down one block is read once, and a
// copy first only adds a pass (the batch of 8 above, the same command with DIR holding the
// heuristic with W packed per panel: 0.157 and 0.144 ms unpacked, 0.208 and 0.198 packed).
std::optional<InputPack> panel_operand_pack(const Analysis& analysis, const Schedule& schedule, const FuncAnalysis& func,
                                            const StageAnalysis& update);
// The pack that makes a matmul's vector loop walk an input contiguously (attention's K
// read across its rows, a GEMM's B^T): that input's dimension moved innermost, per column
// panel where the host walks panels (in the panel's cache, not a second pass over memory),
// per iteration of the host's outermost parallel loop where that is a batch the input is
// indexed by (attention's heads), else at root, in parallel.
std::optional<InputPack> transposed_operand_pack(const Analysis& analysis, const Schedule& schedule,
                                                 const FuncAnalysis& func, const StageAnalysis& update);

// True when Func `func` reads a row reduction directly or through Funcs without updates
// (a normalization's output reads its rows' mean and variance, softmax's its rows' sum).
bool reads_row_reduction(const Analysis& analysis, int func);
// Rows per block of a Func that reads row reductions (fewer when there would not be four
// blocks per core): the reductions are computed per block, which stays in the L2 cache.
inline constexpr int64_t kRowBlock = 64;
// The tiling of a Func that reads row reductions, as the expert normalizations of
// bench/expert/ have it: blocks of rows (in parallel at root), each row streamed whole one
// vector at a time. With blocks of 8 rows walked a vector column at a time, `ktune bench
// bench/suite/*.json --methods ktune-heuristic,expert,onednn --expert-dir bench/expert`
// timed layernorm's heuristic at 0.574 ms, bench/expert/layernorm.json at 0.378.
TilingChoice row_consumer_choice(const StageAnalysis& consumer, bool at_root, const TargetInfo& target);

// The families of accumulators: matmul, conv, or none.
enum class AccumulatorFamily { kNone, kMatmul, kConv };
// The index of the accumulator Func (of a family) that Func `func` reads directly or through
// Funcs without updates (a bias and an activation fused after the product); -1 when none.
int accumulator_read(const Analysis& analysis, int func);
// The family of Func `func`'s own last update.
AccumulatorFamily accumulator_family(const FuncAnalysis& func);

}  // namespace ktune::scheduler
