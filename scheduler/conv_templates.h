// The stage schedules of the convolution family (family_templates.h has the others),
// recognised from the analysis and adapted to the shape, the target and the layout: NCHW
// (the output channels the third pure loop, the columns the first) or NHWC (the channels
// the first, the columns the second).
//   - Where the output channels fill blocks of kConvChannelVectors vectors: the channel
//     layout of bench/expert/conv3x3_relu.json and conv3x3_nhwc_relu.json. The Func that
//     reads the accumulator walks blocks of channels by a row of columns, vectorized along
//     the channels (in NCHW with AVX-512 along the block's columns, gathered from it); the
//     accumulator is computed per block ("c_b" of NCHW's c, "x_b" of NHWC's x), stored with
//     its channels innermost, its update holding the block in registers with the window
//     inside the input channels; NCHW's weights are packed with the output channels
//     innermost and its padded input stored with the input channels innermost (oneDNN's
//     blocking; NHWC's HWIO weights and activations are so already).
//   - NCHW convolutions the channel layout does not suit (suits_column_tiles: a 1x1
//     window, few input channels, channels or columns that fill no block): column tiles,
//     a register tile of a vector of columns by two rows by channels per tile of the
//     consumer, the input channels innermost, the blocks of channels inside a row's tiles.
//   - Elsewhere (NHWC): a register tile per tile of the consumer, vectorized along the
//     first pure loop by rows by channels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"
#include "scheduler/stage_template.h"

namespace ktune::scheduler {

// Where a convolution keeps its output channels, columns and rows among its first three
// pure loops (positions, innermost first): NCHW {2, 0, 1}, NHWC {0, 1, 2}. The Funcs
// that read it pointwise (a bias, an activation) have the same.
struct ConvLayout {
  int channel = 2;
  int column = 0;
  int row = 1;
  bool operator==(const ConvLayout& o) const { return channel == o.channel && column == o.column && row == o.row; }
};

// The layout of a convolution's accumulator update: an associative update with several
// reduction loops and three or more pure loops that reads one operand indexed by exactly one
// of the first three pure loops (the weights, per output channel) and one indexed by the
// other two and not by it (the activations); nullopt for any other stage.
std::optional<ConvLayout> conv_layout(const FuncAnalysis& func, const StageAnalysis& stage);
// The layout of `func`'s last update; nullopt without updates or for another family.
std::optional<ConvLayout> conv_layout(const FuncAnalysis& func);
bool is_conv_update(const FuncAnalysis& func, const StageAnalysis& stage);
// True when the target has dot products for the operands of convolution update `update` of
// `acc` (dot_product_factor) and the operand read as vectors holds the input channels (its
// innermost reduction loop) innermost: 8-bit NHWC weights in blocks of four input channels
// (subgraphs/ops/conv.cc). The other operand is broadcast.
bool conv_uses_dot_products(const FuncAnalysis& acc, const StageAnalysis& update, const TargetInfo& target);

// Its update (`update`, a stage of `acc`) per tile of its consumer: one vector across x by a
// few rows by 8 output channels in registers (4 with AVX2). NHWC: the window innermost
// (inside the input channels), or, with dot products for its operands on the target, the
// input channels innermost in dot products (add_dot_products). NCHW, vectorized along its columns: the input channels
// innermost (bench/suite_shapes/conv3x3_c48.json in column tiles: 0.395 ms against 0.485
// with the window innermost).
StageSchedule conv_update_stage(const FuncAnalysis& acc, const StageAnalysis& update, const ConvLayout& layout,
                                const TargetInfo& target);
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

// The NCHW convolutions the channel layout (below) does not suit: one reduction loop alone
// runs more than once (a 1x1 window), a matmul of the weights by the columns, contiguous in
// the input and the output alike; fewer input channels than a vector (an RGB image's 3);
// output channels or columns that do not fill its blocks. They keep the register tile vectorized along the columns, and the channel
// layout would transpose the input into channels innermost and scatter every output vector
// across 16 planes. `ktune bench SPEC --methods ktune-heuristic,expert,onednn`, the expert
// being column_conv_consumer_stage with conv_update_stage, timed (ms; heuristic, expert,
// oneDNN), in bench/suite_shapes/: conv1x1.json 0.465, 0.279, 0.342; conv_rgb.json (3 input
// channels) 0.391, 0.269, 0.263; conv3x3_c48.json (80 filters) 0.589, 0.395, 0.359 (where
// the heuristic walked blocks of 32 channels outermost with the window innermost).
// bench/suite/conv3x3_relu.json stays in the channel layout: 1.22 and 1.35 ms there, 1.50
// and 2.00 in column tiles (oneDNN 1.03 and 1.11).
bool suits_column_tiles(const FuncAnalysis& acc, const StageAnalysis& consumer, const TargetInfo& target);
// The Func that reads such an accumulator: tiles of one vector of columns by two rows by a
// register tile of channels (the accumulator computed per tile, at "x_o"), every block of
// channels walked inside a row's tiles, whose input stays in the L1 cache; the rows (and
// the batch) in parallel.
StageSchedule column_conv_consumer_stage(const StageAnalysis& consumer, const ConvLayout& layout,
                                         const TargetInfo& target);

// The channel layout. `ktune bench bench/suite/conv3x3_relu.json --methods
// ktune,ktune-heuristic,expert,onednn --expert-dir bench/expert` (then bench/expert/channels)
// timed the NCHW expert at 0.851 ms, a 100-minute run's best (vectorized along x) at 0.888,
// oneDNN at 0.779 on an AMD EPYC; on an Intel Xeon, `--methods ktune-heuristic,expert,onednn
// --expert-dir bench/expert/rows` timed the heuristic in this layout at 1.68 ms, the
// x-vectorized expert at 2.47, oneDNN at 1.57. It fits where the channels fill whole blocks
// and a row has a block's columns.
inline constexpr int64_t kConvChannelVectors = 2;
// Columns of the block: as many as fill half the register file with its vectors (8 with
// AVX-512's or AArch64's 32 registers, 4 with AVX2's 16).
int64_t conv_channel_columns(const TargetInfo& target);
bool conv_channel_blocks_fit(const StageAnalysis& consumer, const ConvLayout& layout, const TargetInfo& target);
// The Func that reads the accumulator: blocks of channels ("_b", outside the block's vectors
// "_m" and columns) walked along the row, the rows (and the batch) in parallel. Vectorized
// along the channels, but in NCHW with AVX-512 along the block's columns (8), its 16
// channels unrolled: the NCHW output is then stored a vector of columns at a time, gathered
// from the block, not a column's channels scattered over 16 planes (`ktune bench
// bench/suite/conv3x3_relu.json --methods ktune-heuristic,expert,onednn`, the expert so
// vectorized, timed it 1.09, 1.10 and 1.05x faster than vectorized along the channels).
StageSchedule conv_channel_consumer_stage(const StageAnalysis& consumer, const ConvLayout& layout,
                                          const TargetInfo& target);
// The block loop ("c_b", the outer piece of the channels' "_t") where `st` walks `consumer` in
// blocks of channels; nullopt otherwise.
std::optional<std::string> channel_block_loop(const StageAnalysis& consumer, const StageSchedule& st);
// True when `at` is a block of channels of its host, for an accumulator of `layout`.
bool at_channel_block(const Analysis& analysis, const ComputeLocation& at, const ConvLayout& layout);
// The accumulator's stages computed per block: the initialization vectorized along the
// channels, the update of accumulator `acc` holding the block in registers (unrolled vectors
// by unrolled columns) with its reduction loops reversed between the block and the rest of
// the row, or, where the target has dot products for its operands, in their own order
// with the input channels' innermost piece in each dot product (add_dot_products).
StageSchedule conv_channel_init_stage(const StageAnalysis& init, const ConvLayout& layout, const TargetInfo& target);
StageSchedule conv_channel_update_stage(const FuncAnalysis& acc, const StageAnalysis& update, const ConvLayout& layout,
                                        const TargetInfo& target);
// The accumulator's pure variables with its channels innermost; empty where they are already.
std::vector<std::string> channels_innermost_storage(const FuncAnalysis& acc, const ConvLayout& layout);
// `func`'s pure variables with dimension `dim` moved innermost, the others in order.
std::vector<std::string> dim_innermost_storage(const FuncAnalysis& func, int dim);

// What the update reads its activations from (a Func, the padded input, or an input) and the
// dimension its input channels index, where that is not the innermost one (NCHW); nullopt
// where it is (NHWC). With the window read per input channel, NCHW activations are 58
// columns of 64 planes apart: oneDNN reorders them into blocks of channels first.
struct StridedActivations {
  int func = -1;      // index into Analysis::funcs; -1 for a pipeline input
  std::string name;   // Func name or input name
  int channel_dim = 0;
  std::string channel_loop;  // the update's reduction loop that indexes that dimension
};
std::optional<StridedActivations> strided_activations(const FuncAnalysis& acc, const ConvLayout& layout);
// The pure stage of that Func stored with its channels innermost: vectorized along the
// channels, one row of columns per block of a vector of channels, the rows (and the batch)
// in parallel. `ktune bench bench/suite/conv3x3_relu.json --methods expert,onednn
// --expert-dir bench/expert`, run in turns on an Intel Xeon, timed the channel layout at
// 0.94x and 0.89x oneDNN's speed with the padded input stored so (the expert schedule of
// commit 15523e7), at 0.80x and 0.77x without (that of commit 668bb26).
StageSchedule channels_innermost_stage(const StageAnalysis& pure, int channel_dim, const TargetInfo& target);
// The pack of input activations with their channels innermost, at root, in parallel.
std::optional<InputPack> conv_activation_pack(const Analysis& analysis, const FuncAnalysis& acc, const ConvLayout& layout);
// The pack of the weights (the operand the update's channels index and its columns do not)
// with the output channels innermost, at root, in parallel; nullopt where they are already.
std::optional<InputPack> conv_weight_pack(const Analysis& analysis, const FuncAnalysis& acc, const ConvLayout& layout);

}  // namespace ktune::scheduler
