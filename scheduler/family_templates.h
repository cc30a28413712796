// The stage schedules a performance engineer writes for four op families, recognised from
// the analysis (not from op names, so a Generator's pipeline gets them too) and adapted to
// the shape and the target. The heuristic schedule starts from them and the sampler draws
// them, so tuning starts where the expert schedules of bench/expert/ are:
//   - a row reduction (softmax's maximum, layernorm's mean) computed per block of rows:
//     rfactor of the reduction's vector-wide piece, partial results made beside the row;
//   - a column reduction (a column sum) at root: chunks of rows in parallel, each streaming
//     whole rows, four per pass, into a vector of partial sums;
//   - a matmul accumulator per tile of its consumer: two vectors by several rows held in
//     registers, the reduction blocked, an operand read across its rows packed transposed,
//     one read along its rows packed per column panel of the consumer;
//   - a convolution accumulator per block of output channels of its consumer, stored and
//     vectorized with the channels innermost: two vectors of channels by a row of columns
//     in registers, the window inside the input channels, the weights packed with the
//     output channels innermost (oneDNN's blocking); where the channels do not fill its
//     blocks, per tile of its consumer: a vector across x by rows by channels in registers.
#pragma once

#include <optional>

#include "scheduler/analysis.h"
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
StageSchedule matmul_update_stage(const StageAnalysis& stage, const TargetInfo& target);
// Where the target has a dot-product instruction for the stage's operands (VNNI for 8-bit
// ones), the innermost reduction piece of `st` vectorized inside its pure vector
// (vector_reduce.h); `st` unchanged otherwise.
void add_dot_products(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target, StageSchedule& st);
// Column panels of a matmul's consumer: kPanelVectors vectors wide, walked down blocks of
// kPanelRows rows. They fit a consumer of two loops with eight panels or more across and
// two blocks down.
inline constexpr int64_t kPanelVectors = 4;
inline constexpr int64_t kPanelRows = 32;
bool column_panels_fit(const StageAnalysis& consumer, const TargetInfo& target);
// True when `st` walks `consumer` in column panels: the outer piece of its innermost pure
// loop ("x_o") is outermost in its order.
bool walks_column_panels(const StageAnalysis& consumer, const StageSchedule& st);
// The tiling of the Func that reads a matmul accumulator pointwise: tiles of 16 vectors by
// 32 rows, the accumulator computed per tile (at "x_o"); with `panels` where they fit,
// column panels in parallel, the accumulator computed per block of rows (at "y_o"). With
// the operand read along the panel packed per panel (panel_operand_pack), `ktune bench
// bench/suite/gemm_1024.json bench/suite/mlp_gelu.json --methods ktune,ktune-heuristic,onednn`
// on a database of a 100-minute run (whose bests were the tiles of 256 by 32) timed this
// heuristic at 5.74 and 4.52 ms, the tiles at 6.28 and 4.80, oneDNN at 6.17 and 4.93.
TilingChoice matmul_consumer_choice(const StageAnalysis& consumer, const TargetInfo& target, bool panels);
// The pack of the operand a matmul reads along its consumer's column panels (B's rows), in
// its own order per panel: the panel's rows are then contiguous, not a row of B apart.
// Only for a rank-2 input whose host's outermost loop is a panel ("x_o", outermost).
std::optional<InputPack> panel_operand_pack(const Analysis& analysis, const Schedule& schedule, const FuncAnalysis& func,
                                            const StageAnalysis& update);
// The pack that makes a matmul's vector loop walk an input contiguously (attention's K
// read across its rows): that input's dimension moved innermost, at root, in parallel.
std::optional<InputPack> transposed_operand_pack(const Analysis& analysis, const FuncAnalysis& func,
                                                 const StageAnalysis& update);

// A convolution's accumulator: an associative update with several reduction loops and
// three or more pure loops, reading one operand the innermost pure loop indexes (the
// activations) and one it does not that the third pure loop does (the weights, per output
// channel).
bool is_conv_update(const FuncAnalysis& func, const StageAnalysis& stage);
// Its update per tile of its consumer: one vector across x by a few rows by 8 output
// channels in registers (4 with AVX2), the window innermost (inside the input channels).
StageSchedule conv_update_stage(const StageAnalysis& stage, const TargetInfo& target);
// Register tiles of output channels in one block of the Func that reads a convolution
// accumulator: the accumulator is computed per block, and its loads of the input window
// serve four register tiles from the L1 cache. `ktune bench bench/suite/conv3x3_relu.json
// --methods ktune-heuristic,onednn --rounds 5` timed conv3x3_relu's heuristic at 0.987 ms
// with blocks of 32 channels (oneDNN 0.741); with blocks of one register tile (8), a bench
// of the suite timed it at 1.19 ms (oneDNN 0.696).
inline constexpr int64_t kConvRegisterTilesPerBlock = 4;
// The tiling of the Func that reads a convolution accumulator pointwise: the register
// tile's vector and rows by kConvRegisterTilesPerBlock of its output channels (unrolled
// where that is at most 16 channels: with AVX-512 the 32-channel block stays a loop), its
// outer loops in parallel.
TilingChoice conv_consumer_choice(const StageAnalysis& consumer, const TargetInfo& target);

// The channel layout of bench/expert/conv3x3_relu.json. The Func that reads the
// accumulator walks blocks of kConvChannelVectors vectors of output channels (its third
// pure loop) by conv_channel_columns columns (its first), the channels vectorized; the
// accumulator is computed per block (at "c_o"), stored with its channels innermost, its
// update holding the block in registers with the window inside the input channels. `ktune
// bench bench/suite/conv3x3_relu.json --methods ktune,ktune-heuristic,expert,onednn
// --expert-dir bench/expert` (then bench/expert/channels) timed that schedule at 0.851 ms,
// a 100-minute run's best (vectorized along x) at 0.888, oneDNN at 0.779 on an AMD EPYC;
// on an Intel Xeon, `--methods ktune-heuristic,expert,onednn --expert-dir
// bench/expert/rows` timed the heuristic in this layout at 1.68 ms, the x-vectorized expert
// at 2.47, oneDNN at 1.57. It fits where the channels fill
// whole blocks and a row has a block's columns.
inline constexpr int64_t kConvChannelVectors = 2;
// Columns of the block: as many as fill half the register file with its vectors (8 with
// AVX-512's or AArch64's 32 registers, 4 with AVX2's 16).
int64_t conv_channel_columns(const TargetInfo& target);
bool conv_channel_blocks_fit(const StageAnalysis& consumer, const TargetInfo& target);
StageSchedule conv_channel_consumer_stage(const StageAnalysis& consumer, const TargetInfo& target);
// True when `st` vectorizes the inner piece of `consumer`'s third pure loop (its channels).
bool walks_channel_blocks(const StageAnalysis& consumer, const StageSchedule& st);
// True when `at` is a block of channels ("c_o") of its host.
bool at_channel_block(const Analysis& analysis, const ComputeLocation& at);
// The accumulator's stages computed per block: the initialization vectorized along the
// channels, the update holding the block in registers (unrolled vectors by unrolled columns)
// with its reduction loops reversed between the block and the rest of the row.
StageSchedule conv_channel_init_stage(const StageAnalysis& init, const TargetInfo& target);
StageSchedule conv_channel_update_stage(const StageAnalysis& update, const TargetInfo& target);
// The accumulator's pure variables with its channels (third) innermost.
std::vector<std::string> channels_innermost_storage(const FuncAnalysis& acc);
// The pack of the weights (the operand the update's channels index and its columns do not)
// with the output channels innermost, at root, in parallel; nullopt where they are already.
std::optional<InputPack> conv_weight_pack(const Analysis& analysis, const FuncAnalysis& acc);

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

// The accumulator family Func `func` reads directly or through Funcs without updates (a
// bias and an activation fused after the product): matmul, conv, or none.
enum class AccumulatorFamily { kNone, kMatmul, kConv };
AccumulatorFamily accumulator_family_read(const Analysis& analysis, int func);
// The family of Func `func`'s own last update.
AccumulatorFamily accumulator_family(const FuncAnalysis& func);

}  // namespace ktune::scheduler
