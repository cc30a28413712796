// ScheduleModel: what one schedule does, from the analysis and the schedule alone: which
// stages run and how often, their loop nests after splits, their accesses through inlined
// Funcs, and each accessed buffer's footprint at every loop level. Feature groups read it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::cost_model::internal {

// One loop of a stage after splits.
struct LoopModel {
  std::string name;         // loop name in the schedule
  int dim = 0;              // isl dimension of the stage it iterates (outermost first)
  int64_t extent = 1;       // iterations per execution of the loop (per realization)
  int64_t stride = 1;       // step of the original loop's index per iteration
  bool reduction = false;   // comes from a reduction variable
  bool parallel = false;    // one of the fused parallel loops (or rfactor's parallel u)
  bool vectorized = false;  // the vectorized loop (or rfactor's vectorized u)
  bool unrolled = false;    // fully unrolled
  bool gpu_block = false;   // mapped to GPU blocks
  bool gpu_thread = false;  // mapped to GPU threads
};

// The accesses of a stage to one buffer.
struct AccessGroupModel {
  int buffer = 0;                   // index into PipelineFacts::buffers
  int group = 0;                    // FootprintCache group id
  bool store = false;               // includes the stage's own store (the written buffer)
  int loads = 0;                    // loads per iteration (paths that read)
  std::vector<AccessPath> paths;    // the accesses (see FootprintCache)
  // Address step in elements per iteration of the innermost loop, of the vectorized loop:
  // one per path; kUnknownStride when an access is not affine. Steps are taken in the
  // buffer as one realization stores it (a compute_at Func's region, a pack's copy at a
  // loop: the part of the input that loop's iteration reads), in its storage order.
  std::vector<int64_t> inner_steps;
  std::vector<int64_t> vector_steps;  // empty when the stage is not vectorized
  // The same along the innermost reduction loop that is neither unrolled nor vectorized (a
  // matmul's k: a whole row of B apart, or a few vectors in a panel's copy); empty without one.
  std::vector<int64_t> reduction_steps;
  // The change of the buffer's index per iteration of those loops, per path (empty when
  // unknown), from which the steps are worked out once the realizations are known.
  std::vector<std::vector<int64_t>> inner_deltas, vector_deltas, reduction_deltas;
  // Footprint per loop level k (the tile of loops [0, k)), k = 0..depth; owned by the
  // FootprintCache, valid while it lives.
  std::vector<const Footprint*> levels;
  // The same before a compute_at producer's levels were cut to one realization: the region
  // of it that all realizations inside each level need. Empty when nothing was cut.
  std::vector<const Footprint*> regions;
};

// Stride of an access whose coefficients are unknown.
inline constexpr int64_t kUnknownStride = -1;

// One stage that runs (stages of inlined Funcs do not).
struct StageModel {
  int func = 0;                  // index into Analysis::funcs
  int stage = 0;                 // 0 = pure definition, k = update k-1
  int id = 0;                    // stage id (PipelineFacts::stage_ids)
  int64_t realizations = 1;      // times the stage runs (its Func is realized)
  std::vector<LoopModel> loops;  // innermost first
  std::vector<int64_t> dim_extent;  // per isl dimension: iterations per realization
  int64_t points = 1;            // iterations per realization that compute (product of dim_extent)
  int64_t iterations = 1;        // loop iterations per realization (split tails rounded up)
  double ops = 0;                // arithmetic per iteration, inlined Funcs included
  int loads = 0;                 // loads per iteration, inlined Funcs included
  int64_t vector_width = 1;      // lanes of the vectorized loop; 1 when none
  int64_t tasks = 1;             // iterations of its own parallel loop; 1 when serial
  int64_t outer_tasks = 1;       // parallel tasks of the enclosing loop it runs inside (compute_at); 1 if none
  bool rfactor = false;          // split with rfactor
  int host_stage = -1;           // compute_at Funcs: index into ScheduleModel::stages of the host; else -1
  int host_level = 0;            // compute_at Funcs: loops of the host inside the compute_at loop
  // compute_at Funcs: for each host level q = host_level .. host depth, the cache lines all
  // accesses of this stage touch over the realizations inside one iteration of q (the first
  // entry: one realization). Lets cache reuse between consecutive realizations count.
  std::vector<int64_t> host_lines;
  // The same levels: per buffer its accesses touch, the extent of the bounding box over the
  // realizations inside one iteration of q (what a pack at that loop copies of an input).
  std::vector<std::map<int, std::vector<int64_t>>> host_extents;
  std::vector<AccessGroupModel> groups;  // one per buffer touched, the store's buffer included
  // Times the loops [0, level) run as a whole per realization (iterations of loop `level`),
  // counting only tiles that hold real iterations.
  int64_t executions(int level) const;
  int depth() const { return static_cast<int>(loops.size()); }
};

// How one Func is computed.
struct FuncModel {
  scheduler::ComputeLocation::Kind kind = scheduler::ComputeLocation::Kind::kRoot;
  int64_t realizations = 1;       // times it is computed; 0 when inlined
  std::vector<int64_t> region;    // per buffer dimension: elements of one realization
  int host_stage = -1;            // index into ScheduleModel::stages of the compute_at host; -1 otherwise
  int host_level = 0;             // loops of the host inside the compute_at loop (the store loop
                                  // of a sliding window, which is modelled as computed there)
  // A sliding window (ComputeLocation::store_loop): the elements that stay live (what one
  // iteration of its compute loop reads); 0 otherwise.
  int64_t window_elements = 0;
  std::string gpu_memory;         // CUDA: "shared", "register" or "" (Halide's choice)
  int64_t region_elements() const;  // product of `region`
};

struct ScheduleModel {
  std::vector<FuncModel> funcs;    // per Analysis::funcs
  std::vector<StageModel> stages;  // the stages that run, consumers before producers
  int rfactor_stages = 0;          // stages split with rfactor
  int rfactor_at_func = 0;         // of which with the intermediate beside the Func (at_func)
  int rfactor_pure_vector = 0;     // of which streaming rows into vectors of partial results
  int vector_reduce_stages = 0;    // stages with a vectorized reduction piece (dot products)
  int vector_reduce_factor = 0;    // the largest such piece (2 or 4); 0 when none
  // Packed inputs and Funcs stored in another order: buffer index -> its dimensions in
  // storage order, innermost first (reads of a packed input step through the copy).
  std::map<int, std::vector<int>> storage_orders;
  int packed_inputs = 0;           // inputs read through a packed copy
  int reordered_funcs = 0;         // Funcs stored in another order than their definition's
  double packed_bytes = 0;         // bytes of the packed inputs (each element copied once)
  // Bytes the packs copy, each realization of a pack at a loop counted (a pack at a loop
  // that does not tile the input copies the same part again per iteration), and the same
  // divided by the tasks that share the copying (a serial root pack: all of it).
  double pack_copied_bytes = 0;
  double pack_copied_bytes_per_task = 0;
  int unknown_loops = 0;           // schedule entries naming loops that do not exist (ignored)
};

// Works out `schedule`. Loops, splits or compute locations that do not fit the analysis are
// skipped (the Space validates schedules; features must not fail on an odd one).
ScheduleModel build_schedule_model(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                   FootprintCache& cache, const scheduler::Schedule& schedule);

}  // namespace ktune::cost_model::internal
