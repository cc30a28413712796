// GPU rfactor (CUDA targets): a starved reduction (few output elements, a long reduction:
// softmax's row max and sum, layernorm's row statistics, column sums, matrix-vector
// products) finds its parallelism in the reduction loop. The innermost reduction loop r is
// split r_o x r_i (F iterations) and r_i is rfactored into u, so the intermediate
// "<func>_intm" (pure loops and u) is a kernel of its own with r_o serial in each thread:
//   rows    (r walks the contiguous dimension): threads [u], blocks [the pure loops], so
//           adjacent threads read adjacent elements;
//   columns (the innermost pure loop x walks it): threads [x_i, u], blocks [x_o, ...], so a
//           warp reads one contiguous run of x.
// What remains of the stage reduces over u: a kernel with its innermost pure loop split
// over threads and the rest on blocks.
//   softmax's row max over rows x, F = 128: y_max.update(0) splits k$x -> k_x_o x k_x_i (128),
//     rfactor {"loop": "k_x_i", "gpu": {"threads": ["u"], "blocks": ["x"]}};
//     what remains splits x -> x_o x x_i (64), threads [x_i], blocks [x_o]
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/loop_nest.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

struct GpuRFactorChoice {
  int64_t factor = 128;        // F: iterations of r_i, the extent of u (rows: 32 to 256;
                               // columns: 8 to 32, beside threads_x threads)
  int64_t threads_x = 0;       // columns: threads along the innermost pure loop in the
                               // intermediate, beside u; 0 = rows (u alone on threads)
  int64_t final_threads = 64;  // threads of the remaining stage along its innermost pure loop
};

// Whether a GPU rfactor fits `stage` of `func` at all: an associative update with 1 to 3
// pure loops (the intermediate's block loops), a remaining stage that can have a block
// loop, and an innermost reduction loop of at least 2 x 32 iterations (rows) or 2 x 8
// (columns).
bool gpu_rfactor_fits(const FuncAnalysis& func, const StageAnalysis& stage);

// True when the stage's innermost pure loop, not its innermost reduction loop, walks the
// contiguous (innermost) dimension of what the stage reads: a column reduction.
bool reduces_across_columns(const FuncAnalysis& func, const StageAnalysis& stage);

// The starvation rules, on pure iterations P (output elements of the stage), the innermost
// reduction loop's extent R and the device's SMs S (80 when unknown):
//   sampled sometimes: P < S x max threads per block (fewer outputs than one full block
//                      per SM would run), and R >= 2F for the smallest F;
//   heuristic:         P < S x 256 and R >= 1024 (clearly starved).
bool gpu_reduction_starved(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);
bool gpu_reduction_clearly_starved(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);

// The heuristic's choice: rows F = 256 when R >= 2048, else 128, else the largest F with
// 8F <= R; columns 32 x-threads beside F = 8 to 32 (8F <= R); 64 threads for the rest.
GpuRFactorChoice heuristic_gpu_rfactor(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target);
// A random choice among those that fit the stage and the device's thread limit.
GpuRFactorChoice sampled_gpu_rfactor(const FuncAnalysis& func, const StageAnalysis& stage, const TargetInfo& target,
                                     Rng& rng);

// The stage schedule for `choice` (the stage must fit, see gpu_rfactor_fits).
StageSchedule make_gpu_rfactor_stage(const StageAnalysis& stage, const GpuRFactorChoice& choice);

// The loops of the intermediate of `schedule`'s GPU rfactor: the stage's pure loops and u
// (the rfactored loop's extent), after the rfactor's splits, innermost first (Halide's
// order for the intermediate's pure stage). nullopt with `error` set when the rfactor loop
// or a split does not exist.
std::optional<LoopNest> intermediate_loop_nest(const StageAnalysis& stage, const StageSchedule& schedule,
                                               std::string* error);

}  // namespace ktune::scheduler
