// Space: the schedules that exist for one subgraph on one target. Built once from the
// analysis; it samples schedules (following what works: inline cheap producers, tile
// reductions in registers, parallelize outer loops, vectorize the contiguous dimension),
// mutates and crosses them over, validates them, and provides the two named reference
// schedules `naive` and `heuristic`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/image_strips.h"
#include "scheduler/mutators/mutator.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"
#include "scheduler/stage_template.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {

// Rejections per validator, for the acceptance-rate figures.
struct ValidationCounts {
  int64_t checked = 0;
  std::map<std::string, int64_t> rejected;  // validator name -> count
};

class Space {
 public:
  explicit Space(Analysis analysis);
  ~Space();
  Space(const Space&) = delete;
  Space& operator=(const Space&) = delete;

  const Analysis& analysis() const { return analysis_; }

  // Everything computed at root, every loop serial (on a GPU: every stage a kernel of
  // 32-thread blocks along its innermost loop).
  Schedule naive() const;
  // The sampling rules applied deterministically.
  Schedule heuristic() const;
  // The heuristic with its image strips at the other counts per core of
  // kStripsPerCoreChoices (image_strips.h), with its stencil producers computed per strip
  // instead of as windows, and with its strips walked in column tiles (column_tiles.h); the
  // heuristic and each of its other counts also with its sibling windows computed together
  // (sibling_windows.h): those that differ from it and validate.
  std::vector<Schedule> strip_variants() const;
  // A random valid schedule, or nullopt if none was found in a bounded number of tries.
  std::optional<Schedule> sample(Rng& rng) const;
  // One unvalidated draw of the sampler (sample() retries draws until one validates).
  Schedule draw(Rng& rng) const { return build(&rng); }
  // One mutator, drawn by weight, applied once without validation (nullopt if it had
  // nothing to change). `mutator` (may be null) receives its name.
  std::optional<Schedule> propose(const Schedule& schedule, Rng& rng, std::string* mutator = nullptr) const;
  // One mutator, drawn by weight, applied to `schedule`; the result differs and validates.
  // `mutator` (may be null) receives the name of the mutator that produced it.
  std::optional<Schedule> mutate(const Schedule& schedule, Rng& rng, std::string* mutator = nullptr) const;
  // Each Func's schedule from one parent or the other; nullopt if no valid child was found.
  std::optional<Schedule> crossover(const Schedule& a, const Schedule& b, Rng& rng) const;
  // The first rejection as "validator: reason", or nullopt when valid.
  std::optional<std::string> validate(const Schedule& schedule, ValidationCounts* counts = nullptr) const;

  // Legal compute locations of Func `func` given the rest of `schedule` (for the consumer's loops).
  std::vector<ComputeLocation> compute_options(const Schedule& schedule, int func) const;
  const std::vector<WeightedMutator>& mutators() const { return mutators_; }

 private:
  // The heuristic when rng is null, a sample otherwise; image strips as `strips` says (a
  // draw picks its own).
  Schedule build(Rng* rng, StripChoice strips = {}) const;
  void finish(Schedule& s, Rng* rng) const;  // scans stored transposed, vector widths of gathers, tails and packs
  // `s` put in strips with sliding windows (image_strips.h), or with its stencils computed
  // per strip (as `choice` says, or a quarter of the draws), finished; nullopt where it has
  // no image-shaped output, the heuristic's result does not validate, or the draw skips it.
  std::optional<Schedule> in_strips(const Schedule& s, Rng* rng, StripChoice choice) const;
  // The tiling of a stage: the heuristic's or a draw (rng), or the consumer tiling of a
  // matmul's family (family_templates.h) for the Func that reads the accumulator.
  TilingChoice tiling_choice(int func, const StageAnalysis& stage, bool root, Rng* rng) const;
  // An update's stage from its op family's template (always in the heuristic, sometimes in
  // a draw), or nullopt when it belongs to none.
  std::optional<StageSchedule> family_stage(int func, const StageAnalysis& stage, const ComputeLocation& compute,
                                            Rng* rng) const;
  // A pure stage of a convolution's channel layout (conv_templates.h): the blocks of
  // channels of the Func that reads the accumulator (always in the heuristic, sometimes in a
  // draw), the accumulator's initialization per block; nullopt elsewhere.
  std::optional<StageSchedule> channel_block_stage(int func, const StageAnalysis& stage, const ComputeLocation& compute,
                                                   Rng* rng) const;
  // Where pure Func `func`, at root, holds the activations of a convolution computed in
  // blocks of channels with its input channels outside its innermost dimension (NCHW), it is
  // stored and computed with them innermost (always in the heuristic, half the draws).
  void store_activations_by_channel(Schedule& schedule, int func, Rng* rng) const;
  // Packs of the inputs: a matmul's operand read across its rows transposed, or the one read
  // along its consumer's column panels copied per panel, a convolution's weights with the
  // output channels innermost and its activations (unpadded) with the input channels
  // innermost where it is computed per block of channels (heuristic; half of the draws),
  // and rarely a drawn pack of any input (draws).
  void add_packs(Schedule& schedule, Rng* rng) const;
  Schedule build_gpu(Rng* rng) const;  // the same for CUDA targets (scheduler/space_gpu.cc)

  Analysis analysis_;
  std::vector<std::unique_ptr<Validator>> validators_;
  std::vector<WeightedMutator> mutators_;
};

}  // namespace ktune::scheduler
