#include "scheduler/conv_templates.h"

#include <algorithm>

#include "scheduler/family_templates.h"
#include "scheduler/input_pack.h"
#include "scheduler/vector_reduce.h"

namespace ktune::scheduler {
namespace {

// Which of the first three pure loops of `stage` each read of another Func or input
// indexes, as bit masks (bit i: pure loop i).
std::vector<int> first_loop_masks(const FuncAnalysis& func, const StageAnalysis& stage) {
  std::vector<int> masks;
  for (const ProducerUse& use : stage.uses) {
    if (use.name == func.name) continue;
    int mask = 0;
    for (size_t i = 0; i < 3; ++i) mask |= has_loop(use.index_loops, stage.pure_loop(i)->name) ? 1 << i : 0;
    masks.push_back(mask);
  }
  return masks;
}

// Output channels of a convolution's register tile: with two rows of one vector, half the
// register file (8 with AVX-512's or AArch64's 32 registers, 4 with AVX2's 16).
int64_t conv_register_channels(const TargetInfo& target) { return std::max<int64_t>(2, target.vector_registers / 2 / 2); }

// The pure loops after the first three (a batch), outermost first.
std::vector<std::string> outer_pure_loops(const StageAnalysis& stage) {
  std::vector<std::string> out;
  for (size_t i = 3; stage.pure_loop(i); ++i) out.insert(out.begin(), stage.pure_loop(i)->name);
  return out;
}

void append_outermost_first(std::vector<std::string>& order, const std::vector<std::string>& outermost_first) {
  order.insert(order.end(), outermost_first.rbegin(), outermost_first.rend());
}

// The names of the channel, column and row loops of `stage` under `layout`.
struct LayoutLoops {
  std::string channel, column, row;
};

LayoutLoops layout_loops(const StageAnalysis& stage, const ConvLayout& layout) {
  return {stage.pure_loop(layout.channel)->name, stage.pure_loop(layout.column)->name, stage.pure_loop(layout.row)->name};
}

}  // namespace

std::optional<ConvLayout> conv_layout(const FuncAnalysis& func, const StageAnalysis& stage) {
  if (!stage.rfactor_ok || !stage.pure_loop(2) || stage.reduction_loop_count() < 2) return std::nullopt;
  const std::vector<int> masks = first_loop_masks(func, stage);
  const auto has = [&](int mask) { return std::find(masks.begin(), masks.end(), mask) != masks.end(); };
  for (int channel = 0; channel < 3; ++channel) {
    const int weights = 1 << channel, activations = 7 & ~weights;
    if (!has(weights) || !has(activations)) continue;
    ConvLayout layout;
    layout.channel = channel;
    layout.column = channel == 0 ? 1 : 0;
    layout.row = 3 - channel - layout.column;
    return layout;
  }
  return std::nullopt;
}

std::optional<ConvLayout> conv_layout(const FuncAnalysis& func) {
  if (!func.has_updates()) return std::nullopt;
  return conv_layout(func, func.stages.back());
}

bool is_conv_update(const FuncAnalysis& func, const StageAnalysis& stage) { return conv_layout(func, stage).has_value(); }

bool conv_uses_dot_products(const FuncAnalysis& acc, const StageAnalysis& update, const TargetInfo& target) {
  const LoopAnalysis* lanes = update.pure_loop(0);
  const LoopAnalysis* channels = update.first_reduction();
  if (!lanes || !channels || dot_product_factor(acc, update, target) == 0) return false;
  for (const ProducerUse& use : update.uses) {
    if (use.name == acc.name || !has_loop(use.index_loops, lanes->name)) continue;
    if (!has_loop(use.contiguous_loops, channels->name)) return false;
  }
  return true;
}

StageSchedule conv_update_stage(const FuncAnalysis& acc, const StageAnalysis& update, const ConvLayout& layout,
                                const TargetInfo& target) {
  TilingChoice c;
  const int64_t lanes = update.native_lanes(target);
  c.vector_width = std::min<int64_t>(lanes, update.pure_loop(0)->extent);
  c.second_tile = 2;
  c.unroll_second = true;
  c.third_tile = conv_register_channels(target);
  c.unroll_third = true;
  c.reduction_inside_tiles = true;
  // With dot products the input channels (the innermost reduction, read four at a time)
  // stay innermost; add_dot_products splits them.
  const bool dot_products = conv_uses_dot_products(acc, update, target);
  c.reverse_reductions = layout.channel == 0 && !dot_products;
  StageSchedule st = make_stage(update, c);
  if (dot_products) add_dot_products(acc, update, target, st);
  if (layout.channel != 0) {
    if (const std::optional<StridedActivations> read = strided_activations(acc, layout)) {
      move_innermost_among_reductions(update, read->channel_loop, st);
    }
  }
  return st;
}

TilingChoice conv_consumer_choice(const StageAnalysis& consumer, const TargetInfo& target) {
  TilingChoice c;
  const int64_t lanes = consumer.native_lanes(target);
  if (const LoopAnalysis* x = consumer.pure_loop(0)) c.vector_width = std::min<int64_t>(lanes, x->extent);
  c.second_tile = 2;
  c.third_tile = kConvRegisterTilesPerBlock * conv_register_channels(target);
  c.unroll_third = true;
  c.parallel_loops = 3;
  return c;
}

bool suits_column_tiles(const FuncAnalysis& acc, const StageAnalysis& consumer, const TargetInfo& target) {
  const std::optional<ConvLayout> layout = conv_layout(acc);
  if (!layout || layout->channel == 0 || !consumer.pure_loop(2)) return false;
  const StageAnalysis& update = acc.stages.back();
  const std::vector<LoopAnalysis>& loops = update.loops;
  const bool pointwise =
      std::count_if(loops.begin(), loops.end(), [](const LoopAnalysis& l) { return l.is_reduction && l.extent > 1; }) == 1;
  const std::optional<StridedActivations> read = strided_activations(acc, *layout);
  const LoopAnalysis* channels = read ? update.find(read->channel_loop) : nullptr;
  const bool few_channels = channels && channels->extent < update.native_lanes(target);
  return pointwise || few_channels || !conv_channel_blocks_fit(consumer, *layout, target);
}

StageSchedule column_conv_consumer_stage(const StageAnalysis& consumer, const ConvLayout& layout,
                                         const TargetInfo& target) {
  const LayoutLoops l = layout_loops(consumer, layout);
  StageSchedule st;
  st.stage = consumer.stage;
  // Each loop split where it is long enough; its inner piece (the whole loop where it is
  // not split) joins the register tile, innermost first.
  const auto tile = [&](const std::string& loop, int64_t factor) {
    const int64_t extent = consumer.find(loop)->extent;
    const bool split = std::min(factor, extent) >= 2;
    if (split) st.splits.push_back({loop, loop_piece(loop, "_o"), loop_piece(loop, "_i"), std::min(factor, extent)});
    st.order.push_back(split ? loop_piece(loop, "_i") : loop);
    return split;
  };
  const bool columns = tile(l.column, consumer.native_lanes(target));
  const bool rows = tile(l.row, 2);
  const bool channels = tile(l.channel, conv_register_channels(target));
  // Then the tiles: the columns', the channels' (the blocks inside a row's tiles), the rows'.
  if (columns) st.order.push_back(loop_piece(l.column, "_o"));
  if (channels) st.order.push_back(loop_piece(l.channel, "_o"));
  if (rows) st.order.push_back(loop_piece(l.row, "_o"));
  append_outermost_first(st.order, outer_pure_loops(consumer));
  st.parallel = outer_pure_loops(consumer);
  if (rows) st.parallel.push_back(loop_piece(l.row, "_o"));
  if (columns) st.vectorize = loop_piece(l.column, "_i");
  return st;
}

int64_t conv_channel_columns(const TargetInfo& target) {
  return std::max<int64_t>(2, target.vector_registers / 2 / kConvChannelVectors);
}

bool conv_channel_blocks_fit(const StageAnalysis& consumer, const ConvLayout& layout, const TargetInfo& target) {
  if (!consumer.pure_loop(2)) return false;
  const LoopAnalysis* channel = consumer.pure_loop(layout.channel);
  const LoopAnalysis* column = consumer.pure_loop(layout.column);
  const int64_t block = kConvChannelVectors * consumer.native_lanes(target);
  return channel->extent % block == 0 && column->extent >= conv_channel_columns(target);
}

StageSchedule conv_channel_consumer_stage(const StageAnalysis& consumer, const ConvLayout& layout,
                                          const TargetInfo& target) {
  const LayoutLoops l = layout_loops(consumer, layout);
  const std::string channel_t = loop_piece(l.channel, "_t");
  StageSchedule st;
  st.stage = consumer.stage;
  st.splits = {{l.column, loop_piece(l.column, "_o"), loop_piece(l.column, "_i"), conv_channel_columns(target)},
               {l.channel, channel_t, loop_piece(l.channel, "_i"), consumer.native_lanes(target)},
               {channel_t, loop_piece(l.channel, "_b"), loop_piece(l.channel, "_m"), kConvChannelVectors}};
  st.order = {loop_piece(l.channel, "_i"), loop_piece(l.column, "_i"), loop_piece(l.channel, "_m"),
              loop_piece(l.channel, "_b"), loop_piece(l.column, "_o"), l.row};
  append_outermost_first(st.order, outer_pure_loops(consumer));
  st.parallel = outer_pure_loops(consumer);
  st.parallel.push_back(l.row);
  st.vectorize = loop_piece(l.channel, "_i");
  if (layout.channel != 0 && target.vector_lanes >= 16) {
    // NCHW with AVX-512's gathers: each channel's columns gathered from the block and stored
    // as one vector, not each column's channels scattered one by one over the planes.
    std::swap(st.order[0], st.order[1]);
    st.vectorize = loop_piece(l.column, "_i");
    st.unroll = {loop_piece(l.channel, "_i")};
  }
  return st;
}

std::optional<std::string> channel_block_loop(const StageAnalysis& consumer, const StageSchedule& st) {
  for (size_t i = 0; i < 3 && consumer.pure_loop(i); ++i) {
    const std::string& name = consumer.pure_loop(i)->name;
    for (const LoopSplit& split : st.splits) {
      if (split.loop == loop_piece(name, "_t") && split.outer == loop_piece(name, "_b")) return split.outer;
    }
  }
  return std::nullopt;
}

bool at_channel_block(const Analysis& analysis, const ComputeLocation& at, const ConvLayout& layout) {
  if (at.kind != ComputeLocation::Kind::kAt) return false;
  const FuncAnalysis* host = analysis.find(at.consumer);
  if (!host || at.consumer_stage >= static_cast<int>(host->stages.size())) return false;
  const LoopAnalysis* channel = host->stages[at.consumer_stage].pure_loop(layout.channel);
  return channel && at.loop == loop_piece(channel->name, "_b");
}

StageSchedule conv_channel_init_stage(const StageAnalysis& init, const ConvLayout& layout, const TargetInfo& target) {
  const std::string channel = init.pure_loop(layout.channel)->name;
  StageSchedule st;
  st.stage = init.stage;
  st.splits = {{channel, loop_piece(channel, "_o"), loop_piece(channel, "_i"), init.native_lanes(target)}};
  st.order = {loop_piece(channel, "_i"), loop_piece(channel, "_o")};
  for (size_t i = 0; i < 3; ++i) {
    if (static_cast<int>(i) != layout.channel) st.order.push_back(init.pure_loop(i)->name);
  }
  append_outermost_first(st.order, outer_pure_loops(init));
  st.vectorize = loop_piece(channel, "_i");
  return st;
}

StageSchedule conv_channel_update_stage(const FuncAnalysis& acc, const StageAnalysis& update, const ConvLayout& layout,
                                        const TargetInfo& target) {
  const LayoutLoops l = layout_loops(update, layout);
  StageSchedule st;
  st.stage = update.stage;
  st.splits = {{l.channel, loop_piece(l.channel, "_o"), loop_piece(l.channel, "_i"), update.native_lanes(target)},
               {l.column, loop_piece(l.column, "_o"), loop_piece(l.column, "_i"), conv_channel_columns(target)}};
  st.order = {loop_piece(l.channel, "_i"), loop_piece(l.channel, "_o"), loop_piece(l.column, "_i")};
  // The reduction loops reversed: the window innermost, the input channels outside it;
  // with dot products the input channels innermost, for add_dot_products to split.
  const bool dot_products = conv_uses_dot_products(acc, update, target);
  std::vector<std::string> reductions;
  for (const LoopAnalysis& r : update.loops) {
    if (r.is_reduction) reductions.push_back(r.name);
  }
  if (!dot_products) std::reverse(reductions.begin(), reductions.end());
  st.order.insert(st.order.end(), reductions.begin(), reductions.end());
  st.order.push_back(loop_piece(l.column, "_o"));
  st.order.push_back(l.row);
  append_outermost_first(st.order, outer_pure_loops(update));
  st.vectorize = loop_piece(l.channel, "_i");
  st.unroll = {loop_piece(l.channel, "_o"), loop_piece(l.column, "_i")};
  if (dot_products) add_dot_products(acc, update, target, st);
  return st;
}

std::vector<std::string> channels_innermost_storage(const FuncAnalysis& acc, const ConvLayout& layout) {
  if (layout.channel == 0) return {};
  return dim_innermost_storage(acc, layout.channel);
}

std::vector<std::string> dim_innermost_storage(const FuncAnalysis& func, int dim) {
  const StageAnalysis& pure = func.stages.front();
  std::vector<std::string> storage = {pure.pure_loop(dim)->name};
  for (size_t i = 0; pure.pure_loop(i); ++i) {
    if (static_cast<int>(i) != dim) storage.push_back(pure.pure_loop(i)->name);
  }
  return storage;
}

std::optional<StridedActivations> strided_activations(const FuncAnalysis& acc, const ConvLayout& layout) {
  const StageAnalysis& update = acc.stages.back();
  const LayoutLoops l = layout_loops(update, layout);
  for (const ProducerUse& use : update.uses) {
    const bool spatial = has_loop(use.index_loops, l.column) && has_loop(use.index_loops, l.row);
    if (use.name == acc.name || !spatial || has_loop(use.index_loops, l.channel)) continue;
    // The input channels: the dimension indexed by one reduction loop alone.
    for (size_t d = 1; d < use.dim_loops.size(); ++d) {
      if (use.dim_loops[d].size() != 1) continue;
      const LoopAnalysis* loop = update.find(use.dim_loops[d][0]);
      if (loop && loop->is_reduction) return StridedActivations{use.func, use.name, static_cast<int>(d), loop->name};
    }
  }
  return std::nullopt;
}

StageSchedule channels_innermost_stage(const StageAnalysis& pure, int channel_dim, const TargetInfo& target) {
  const std::string channel = pure.pure_loop(channel_dim)->name;
  std::vector<std::string> others;
  for (size_t i = 0; pure.pure_loop(i); ++i) {
    if (static_cast<int>(i) != channel_dim) others.push_back(pure.pure_loop(i)->name);
  }
  StageSchedule st;
  st.stage = pure.stage;
  const int64_t lanes = std::min<int64_t>(pure.native_lanes(target), pure.pure_loop(channel_dim)->extent);
  st.splits = {{channel, loop_piece(channel, "_o"), loop_piece(channel, "_i"), lanes}};
  st.order = {loop_piece(channel, "_i"), others.front(), loop_piece(channel, "_o")};
  st.order.insert(st.order.end(), others.begin() + 1, others.end());
  st.parallel.assign(others.rbegin(), others.rend() - 1);
  st.vectorize = loop_piece(channel, "_i");
  return st;
}

std::optional<InputPack> conv_activation_pack(const Analysis& analysis, const FuncAnalysis& acc, const ConvLayout& layout) {
  const std::optional<StridedActivations> read = strided_activations(acc, layout);
  if (!read || read->func >= 0) return std::nullopt;
  const InputAnalysis* input = analysis.find_input(read->name);
  if (!input) return std::nullopt;
  return transposed_pack(analysis, *input, read->channel_dim);
}

std::optional<InputPack> conv_weight_pack(const Analysis& analysis, const FuncAnalysis& acc, const ConvLayout& layout) {
  const StageAnalysis& update = acc.stages.back();
  const LoopAnalysis* channel = update.pure_loop(layout.channel);
  const LoopAnalysis* column = update.pure_loop(layout.column);
  if (!channel || !column) return std::nullopt;
  for (const ProducerUse& use : update.uses) {
    if (use.func >= 0 || has_loop(use.index_loops, column->name) || !has_loop(use.index_loops, channel->name)) continue;
    const InputAnalysis* input = analysis.find_input(use.name);
    if (!input || use.dim_loops.size() != input->extents.size()) continue;
    for (size_t d = 1; d < use.dim_loops.size(); ++d) {
      if (use.dim_loops[d] == std::vector<std::string>{channel->name}) return transposed_pack(analysis, *input, static_cast<int>(d));
    }
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
