// Entry points: naive(), heuristic() and sample() all go through build(), which decides
// Funcs from the outputs back to the inputs (a producer's compute location depends on its
// consumer's loops); mutate() and crossover() draw from the mutator table and re-validate.
#include "scheduler/space.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "scheduler/compute_choice.h"
#include "scheduler/family_templates.h"
#include "scheduler/gpu_mapping.h"
#include "scheduler/gpu_stage_template.h"
#include "scheduler/host_consumer.h"
#include "scheduler/column_tiles.h"
#include "scheduler/image_strips.h"
#include "scheduler/buffer_limits.h"
#include "scheduler/inline_cost.h"
#include "scheduler/input_pack.h"
#include "scheduler/loop_nest.h"
#include "scheduler/row_producers.h"
#include "scheduler/scan_strips.h"
#include "scheduler/sibling_windows.h"
#include "scheduler/sliding_window.h"
#include "scheduler/stage_template.h"
#include "scheduler/tail_strategy.h"
#include "scheduler/tiling_choices.h"
#include "scheduler/window_folds.h"

namespace ktune::scheduler {
namespace {

constexpr int kMaxTries = 64;

}  // namespace

Space::Space(Analysis analysis)
    : analysis_(std::move(analysis)),
      validators_(default_validators()),
      mutators_(default_mutators(analysis_.target.kind)) {}

Space::~Space() = default;

Schedule Space::naive() const {
  Schedule s;
  for (const FuncAnalysis& fa : analysis_.funcs) {
    FuncSchedule f;
    f.func = fa.name;
    f.compute.kind = ComputeLocation::Kind::kRoot;
    if (analysis_.target.is_gpu()) {
      for (const StageAnalysis& sa : fa.stages) f.stages.push_back(make_gpu_stage(sa, GpuTilingChoice{}, true));
    }
    s.funcs.push_back(f);
  }
  return s;
}

std::vector<ComputeLocation> Space::compute_options(const Schedule& schedule, int func) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  std::vector<ComputeLocation> options;
  if (fa.is_output) return {ComputeLocation{ComputeLocation::Kind::kRoot, "", 0, ""}};
  options.push_back({ComputeLocation::Kind::kRoot, "", 0, ""});
  if (!fa.has_updates()) options.push_back({ComputeLocation::Kind::kInline, "", 0, ""});
  int host = -1, stage = -1;
  std::string innermost;
  if (analysis_.target.is_gpu()) {
    // Halide 14 resolves compute_at loops in the consumer's last stage only.
    const auto [consumer, use_stage] = host_consumer(analysis_, schedule, func);
    if (consumer < 0 || use_stage != static_cast<int>(analysis_.funcs[consumer].stages.size()) - 1) return options;
    const FuncSchedule* cs = schedule.find(analysis_.funcs[consumer].name);
    if (!cs || cs->compute.kind != ComputeLocation::Kind::kRoot) return options;
    host = consumer;
    stage = use_stage;
  } else {
    const AtHost at = at_host(analysis_, schedule, func);
    if (at.func < 0) return options;
    host = at.func;
    stage = at.stage;
    innermost = at.innermost;
  }
  const std::vector<ComputeLocation> at = at_locations(analysis_, schedule, host, stage, innermost);
  options.insert(options.end(), at.begin(), at.end());
  if (!fa.has_updates()) {  // Halide slides windows of pure Funcs only
    const std::vector<ComputeLocation> windows = window_locations(analysis_, schedule, at);
    options.insert(options.end(), windows.begin(), windows.end());
  }
  return options;
}

Schedule Space::build(Rng* rng, StripChoice strips) const {
  if (analysis_.target.is_gpu()) return build_gpu(rng);
  Schedule s;
  s.funcs.resize(analysis_.funcs.size());
  for (int i = static_cast<int>(analysis_.funcs.size()) - 1; i >= 0; --i) {
    const FuncAnalysis& fa = analysis_.funcs[i];
    FuncSchedule& f = s.funcs[i];
    f.func = fa.name;
    f.compute = choose_compute(analysis_, s, i, compute_options(s, i), rng);
    const bool can_inline = !fa.has_updates() && !fa.is_output;
    // Where Halide could not allocate it (an unbounded region, 2 GB at root), inline it.
    if (can_inline && unallocatable(fa, f.compute)) f.compute.kind = ComputeLocation::Kind::kInline;
    if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
    const bool root = f.compute.kind == ComputeLocation::Kind::kRoot;
    for (const StageAnalysis& sa : fa.stages) {
      std::optional<StageSchedule> family = family_stage(i, sa, f.compute, rng);
      StageSchedule st = family ? *family : make_stage(sa, tiling_choice(i, sa, root, rng));
      if (!st.splits.empty() || !st.order.empty() || !st.parallel.empty() || !st.vectorize.empty() ||
          !st.unroll.empty() || st.rfactor) {
        f.stages.push_back(st);
      }
    }
    const std::optional<ConvLayout> layout = conv_layout(fa);
    if (layout && at_channel_block(analysis_, f.compute, *layout)) f.storage = channels_innermost_storage(fa, *layout);
    if (root && !fa.has_updates()) store_activations_by_channel(s, i, rng);
  }
  compute_accumulator_operands_per_slice(analysis_, s, rng);
  if (std::optional<Schedule> in = in_strips(s, rng, strips)) return *in;
  finish(s, rng);
  return s;
}

std::optional<Schedule> Space::in_strips(const Schedule& s, Rng* rng, StripChoice choice) const {
  // Image pipelines run in strips with their stencils as sliding windows: always in the
  // heuristic where the result validates, in some of the draws.
  if (rng && !rng->chance(0.3)) return std::nullopt;
  if (rng) choice.per_core = rng->pick(std::vector<int>(std::begin(kStripsPerCoreChoices), std::end(kStripsPerCoreChoices)));
  Schedule strips = s;
  if (!apply_image_strips(analysis_, strips, choice.per_core, choice.producers)) return std::nullopt;
  if (rng) {  // a quarter of the draws compute the producers per strip, where that differs
    Schedule whole = s;
    const bool stripped = apply_image_strips(analysis_, whole, choice.per_core, StripProducers::kWholeStrips);
    if (stripped && whole != strips && rng->chance(0.25)) strips = std::move(whole);
  }
  finish(strips, rng);
  if (rng || !validate(strips)) return strips;
  return std::nullopt;
}

void Space::finish(Schedule& s, Rng* rng) const {
  Schedule transposed = s;
  if (transpose_strip_scans(analysis_, transposed) && (!rng || rng->chance(0.7))) s = std::move(transposed);
  narrow_gathering_vectors(analysis_, s);
  choose_tails(analysis_, s, rng);
  add_packs(s, rng);
}

TilingChoice Space::tiling_choice(int func, const StageAnalysis& sa, bool root, Rng* rng) const {
  const bool family = rng ? rng->chance(0.3) : true;
  if (family && root && sa.stage == 0 && !sa.first_reduction()) {
    const int acc = accumulator_read(analysis_, func);
    switch (acc < 0 ? AccumulatorFamily::kNone : accumulator_family(analysis_.funcs[acc])) {
      case AccumulatorFamily::kMatmul: {
        const int64_t reduction = analysis_.funcs[acc].stages.back().first_reduction()->extent;
        return matmul_consumer_choice(sa, reduction, analysis_.target, rng ? rng->chance(0.5) : true);
      }
      case AccumulatorFamily::kConv:
        return conv_consumer_choice(sa, analysis_.target);
      case AccumulatorFamily::kNone:
        break;
    }
  }
  if (family && !analysis_.funcs[func].has_updates() && reads_row_reduction(analysis_, func)) {
    return row_consumer_choice(sa, root, analysis_.target);
  }
  return rng ? sampled_choice(sa, root, analysis_.target, *rng) : heuristic_choice(sa, root, analysis_.target);
}

std::optional<StageSchedule> Space::family_stage(int func, const StageAnalysis& sa, const ComputeLocation& compute,
                                                 Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  const TargetInfo& t = analysis_.target;
  if (sa.stage == 0) return channel_block_stage(func, sa, compute, rng);
  if (rng && !rng->chance(0.3)) return std::nullopt;
  const bool at_consumer = compute.kind == ComputeLocation::Kind::kAt;
  const std::optional<ConvLayout> layout = conv_layout(fa, sa);
  if (layout && at_channel_block(analysis_, compute, *layout)) return conv_channel_update_stage(fa, sa, *layout, t);
  if (at_consumer && is_matmul_update(fa, sa)) {
    StageSchedule st = matmul_update_stage(sa, t);
    add_dot_products(fa, sa, t, st);
    return st;
  }
  if (at_consumer && layout) return conv_update_stage(fa, sa, *layout, t);
  if (at_consumer && is_row_reduction(fa, sa, t)) return row_reduction_stage(sa, t);
  if (!at_consumer && is_column_reduction(fa, sa, t)) return column_reduction_stage(sa, t);
  return std::nullopt;
}

std::optional<StageSchedule> Space::channel_block_stage(int func, const StageAnalysis& sa, const ComputeLocation& compute,
                                                        Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  const TargetInfo& t = analysis_.target;
  // The cheap checks first: finding the accumulator it reads walks the pipeline's producers.
  if (compute.kind == ComputeLocation::Kind::kRoot && !fa.has_updates() && sa.pure_loop(2)) {
    const int acc = accumulator_read(analysis_, func);
    const std::optional<ConvLayout> read = acc < 0 ? std::nullopt : conv_layout(analysis_.funcs[acc]);
    if (read && suits_column_tiles(analysis_.funcs[acc], sa, t) && (!rng || rng->chance(0.3))) {
      return column_conv_consumer_stage(sa, *read, t);
    }
    if (read && conv_channel_blocks_fit(sa, *read, t) && (!rng || rng->chance(0.3))) {
      return conv_channel_consumer_stage(sa, *read, t);
    }
  }
  const std::optional<ConvLayout> own = conv_layout(fa);
  if (own && at_channel_block(analysis_, compute, *own)) return conv_channel_init_stage(sa, *own, t);
  return std::nullopt;
}

void Space::store_activations_by_channel(Schedule& s, int func, Rng* rng) const {
  const FuncAnalysis& fa = analysis_.funcs[func];
  for (const auto& [a, stage] : fa.consumers) {
    const FuncAnalysis& acc = analysis_.funcs[a];
    if (stage == 0) continue;  // an accumulator reads its activations in its update
    const std::optional<ConvLayout> layout = conv_layout(acc);
    if (!layout || !at_channel_block(analysis_, s.funcs[a].compute, *layout)) continue;
    const std::optional<StridedActivations> read = strided_activations(acc, *layout);
    if (!read || read->func != func || (rng && !rng->chance(0.5))) continue;
    s.funcs[func].stages = {channels_innermost_stage(fa.stages.front(), read->channel_dim, analysis_.target)};
    s.funcs[func].storage = dim_innermost_storage(fa, read->channel_dim);
    return;
  }
}

void Space::add_packs(Schedule& s, Rng* rng) const {
  // The packs each matmul Func offers, worked out once per Func (a panel pack walks its
  // host's loop nest).
  struct OperandPacks {
    std::optional<InputPack> transposed, panel;
  };
  std::map<std::string, OperandPacks> offered;
  const auto operand_packs = [&](const FuncAnalysis& fa) -> const OperandPacks& {
    auto it = offered.find(fa.name);
    if (it == offered.end()) {
      OperandPacks p{transposed_operand_pack(analysis_, s, fa, fa.stages.back()),
                     panel_operand_pack(analysis_, s, fa, fa.stages.back())};
      it = offered.emplace(fa.name, std::move(p)).first;
    }
    return it->second;
  };
  for (const InputAnalysis& input : analysis_.inputs) {
    std::optional<InputPack> pack;
    for (const FuncAnalysis& fa : analysis_.funcs) {
      if (fa.has_updates() && is_matmul_update(fa, fa.stages.back()) && (!rng || rng->chance(0.5))) {
        const OperandPacks& packs = operand_packs(fa);
        if (packs.transposed && packs.transposed->input == input.name) pack = packs.transposed;
        if (!pack && packs.panel && packs.panel->input == input.name) pack = packs.panel;
      }
      const FuncSchedule* scheduled = s.find(fa.name);
      const std::optional<ConvLayout> layout = conv_layout(fa);
      if (!pack && scheduled && layout && at_channel_block(analysis_, scheduled->compute, *layout) &&
          (!rng || rng->chance(0.5))) {
        const std::optional<InputPack> weights = conv_weight_pack(analysis_, fa, *layout);
        const std::optional<InputPack> activations = conv_activation_pack(analysis_, fa, *layout);
        if (weights && weights->input == input.name) pack = weights;
        if (activations && activations->input == input.name) pack = activations;
      }
    }
    if (!pack && rng && rng->chance(0.03)) pack = draw_pack(analysis_, s, input, *rng);
    if (pack) s.packs.push_back(*pack);
  }
}

Schedule Space::heuristic() const { return build(nullptr); }

std::vector<Schedule> Space::strip_variants() const {
  const Schedule heuristic = build(nullptr);
  std::vector<Schedule> variants;
  std::vector<StripChoice> choices;
  for (int per_core : kStripsPerCoreChoices) {
    if (per_core != kStripsPerCore) choices.push_back({per_core, StripProducers::kWindows});
  }
  choices.push_back({kStripsPerCore, StripProducers::kWholeStrips});
  const auto add = [&](Schedule s) {
    const bool known = s == heuristic || std::find(variants.begin(), variants.end(), s) != variants.end();
    if (!known && !validate(s)) variants.push_back(std::move(s));
  };
  const auto add_fused = [&](Schedule s) {
    if (fuse_sibling_windows(analysis_, s)) add(std::move(s));
  };
  add_fused(heuristic);
  for (const StripChoice& choice : choices) {
    Schedule s = build(nullptr, choice);
    if (choice.producers == StripProducers::kWindows) add_fused(s);
    add(std::move(s));
  }
  Schedule tiled = heuristic;
  if (tile_strip_columns(analysis_, tiled)) add(std::move(tiled));
  return variants;
}

std::optional<Schedule> Space::sample(Rng& rng) const {
  for (int t = 0; t < kMaxTries; ++t) {
    Schedule s = build(&rng);
    if (!validate(s)) return s;
  }
  return std::nullopt;
}

std::optional<Schedule> Space::propose(const Schedule& schedule, Rng& rng, std::string* mutator) const {
  double total = 0;
  for (const WeightedMutator& m : mutators_) total += m.weight;
  double r = static_cast<double>(rng.below(1 << 20)) / (1 << 20) * total;
  const WeightedMutator* chosen = &mutators_.back();
  for (const WeightedMutator& m : mutators_) {
    if (r < m.weight) {
      chosen = &m;
      break;
    }
    r -= m.weight;
  }
  if (mutator) *mutator = std::string(chosen->mutator->name());
  std::optional<Schedule> out = chosen->mutator->propose(schedule, *this, rng);
  if (out) refresh_window_folds(analysis_, *out);
  if (out && *out == schedule) return std::nullopt;
  return out;
}

std::optional<Schedule> Space::mutate(const Schedule& schedule, Rng& rng, std::string* mutator) const {
  for (int t = 0; t < kMaxTries; ++t) {
    std::string name;
    std::optional<Schedule> out = propose(schedule, rng, &name);
    if (out && !validate(*out)) {
      if (mutator) *mutator = name;
      return out;
    }
  }
  return std::nullopt;
}

std::optional<Schedule> Space::crossover(const Schedule& a, const Schedule& b, Rng& rng) const {
  if (a.funcs.size() != b.funcs.size()) return std::nullopt;
  for (int t = 0; t < kMaxTries / 4; ++t) {
    Schedule child = a;
    for (size_t i = 0; i < child.funcs.size(); ++i) {
      if (rng.chance(0.5)) child.funcs[i] = b.funcs[i];
    }
    refresh_window_folds(analysis_, child);
    if (!validate(child)) return child;
  }
  return std::nullopt;
}

std::optional<std::string> Space::validate(const Schedule& schedule, ValidationCounts* counts) const {
  if (counts) ++counts->checked;
  for (const auto& v : validators_) {
    if (auto reason = v->check(schedule, analysis_)) {
      if (counts) ++counts->rejected[std::string(v->name())];
      return std::string(v->name()) + ": " + *reason;
    }
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
