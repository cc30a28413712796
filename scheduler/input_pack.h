// What a schedule may do with a packed copy of a pipeline input (InputPack in
// scheduler/schedule.h): the input's dimension names, where a pack may be computed (at root,
// or at a loop of the one Func that reads the input, as for a producer Func), and the pack
// the Space proposes for an input, if any. Shared by the Space, the pack mutator and the
// pack validator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// "x", "y", ... for each dimension of `input`, innermost first.
std::vector<std::string> input_dims(const InputAnalysis& input);

// Position of dimension `name` ("x" -> 0, "d5" -> 5) in `input`, -1 if it has none.
int input_dim_index(const InputAnalysis& input, const std::string& name);

// Root, then every loop of the input's host (host_consumer.h) a pack may be computed at.
std::vector<ComputeLocation> pack_locations(const Analysis& analysis, const Schedule& schedule,
                                            const std::string& input);

// Lanes of a pack's vectorized copy loop for `input`: the target's f32 lanes scaled to the
// element size, at most the extent of the innermost stored dimension `storage0`.
int64_t pack_vector_width(const Analysis& analysis, const InputAnalysis& input, const std::string& storage0);

// The pack of `input` with dimension `dim` moved innermost and the others in order (the
// input's own order for `dim` 0), at root, its copy vectorized and parallel.
InputPack transposed_pack(const Analysis& analysis, const InputAnalysis& input, int dim);

// A random pack of `input` at a random location of pack_locations: one of its outer
// dimensions moved innermost (a transpose), or its own order at a loop of its host (a
// panel); nullopt for an input of rank 1, or for a panel without such a loop.
std::optional<InputPack> draw_pack(const Analysis& analysis, const Schedule& schedule, const InputAnalysis& input,
                                   Rng& rng);

// The pack of `input` in `schedule`, or null.
const InputPack* find_pack(const Schedule& schedule, const std::string& input);

}  // namespace ktune::scheduler
