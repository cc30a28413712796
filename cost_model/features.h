// The feature vector the cost model ranks schedules with: a fixed-length, versioned list of
// named numbers per (subgraph, schedule), computed from the analysis and the schedule only
// (no Halide, no LLVM). It is grouped as below; each group has kCount, names() and
// append_to(), and its fields are in the order append_to writes them.
//
//   pipeline | arith | memory | allocation | cost | stage0 (loop, ws) | stage1 (loop, ws) | buffer0..3 | gpu
//
// stage0 and stage1 are the two stages with the most work; buffer0..3 the four buffers with
// the most bytes loaded; gpu describes the heaviest GPU kernel (zeros on a CPU). Working sets come from isl footprints (cost_model/extractor.h).
//
//   std::vector<float> v = extract_features(analysis, schedule);  // one schedule
//   FeatureExtractor ex(analysis); ex.extract(schedules);          // many, in parallel
#pragma once

#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::cost_model {

// Bump whenever a field is added, removed, reordered or computed differently: models store
// it and a model of another version is refused.
// 2: the gpu group; 3: bytes per element of each buffer's type; 4: rfactor placements and
// input packs (pipeline group), packed inputs' strides; 5: vector_reduce; 6: Funcs stored
// in another order (reordered_funcs, and their strides in that order), reduction_stride;
// 7: strides in one realization of each buffer (a compute_at Func's region, a pack's copy at
// a loop), not in the whole buffer; 8: the bytes the packs copy, every realization counted
// (pipeline.pack_copied_bytes, pack_recopy_ratio; cost.pack_copy, pack_copy_per_point, and
// in the estimate).
inline constexpr int kFeatureVersion = 9;

namespace internal {
struct FeatureInputs;  // cost_model/internal/feature_inputs.h
}

// The whole schedule.
struct PipelineFeatures {
  static constexpr int kCount = 19;
  float funcs = 0;             // Funcs in the pipeline
  float stages_run = 0;        // stages that run as loops (stages of inlined Funcs do not)
  float inlined_funcs = 0;     // Funcs computed inline
  float compute_at_funcs = 0;  // Funcs computed at a loop of a consumer
  float root_funcs = 0;        // Funcs computed at root (outputs included)
  float rfactor_stages = 0;    // stages split with rfactor
  float rfactor_at_func = 0;   // of which with the partial results made beside the Func
  float rfactor_pure_vector = 0;  // of which streaming rows into vectors of partial results
  float vector_reduce_stages = 0;  // stages summing 2 or 4 products per lane in one instruction
  float vector_reduce_factor = 0;  // the largest such piece (2 or 4); 0 when none
  float packed_inputs = 0;     // inputs read through a packed copy
  float packed_bytes = 0;      // bytes of the packed inputs (each element once)
  float pack_copied_bytes = 0; // bytes the packs copy, every realization of a pack at a loop counted
  float pack_recopy_ratio = 0; // pack_copied_bytes / packed_bytes (1: each element copied once); 0 without packs
  float reordered_funcs = 0;   // Funcs stored in another order than their definition's
  float points_computed = 0;   // iterations of every running stage times its realizations
  float points_ideal = 0;      // the same with every running stage computed exactly once
  float recompute_ratio = 0;   // points_computed / points_ideal (>= 1 with overlapping tiles)
  float compulsory_bytes = 0;  // bytes of every input read once plus every output written once
  static PipelineFeatures compute(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Arithmetic and memory operations, summed over the running stages.
struct ArithFeatures {
  static constexpr int kCount = 16;
  float ops = 0;                // arithmetic operations executed (inlined Funcs included)
  float ops_instructions = 0;   // ops / lanes used (vector width up to native lanes, or native lanes
                                // for loops LLVM vectorizes itself): arithmetic instructions
  float ops_vector = 0;         // ops in vectorized stages
  float ops_scalar = 0;         // ops in stages without a vectorized loop
  float ops_autovector = 0;     // of which in stages whose innermost loop LLVM vectorizes (unit steps)
  float ops_parallel = 0;       // ops in stages that run on more than one task
  float ops_serial = 0;         // ops in stages that run on one task
  float loads = 0;              // elements loaded
  float loads_dense = 0;        // of which by vectorized loops with address step +-1 (dense vectors)
  float loads_broadcast = 0;    // of which by vectorized loops with step 0 (one value per vector)
  float loads_strided = 0;      // of which by vectorized loops with another step (gathers)
  float loads_scalar = 0;       // of which by stages without a vectorized loop
  float stores = 0;             // elements stored (every iteration stores once)
  float ops_per_point_max = 0;  // largest arithmetic per iteration of a stage
  float intensity = 0;          // ops / compulsory bytes of the pipeline
  float loads_per_op = 0;       // loads / ops (0 when ops is 0)
  static ArithFeatures compute(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Bytes moved between memory levels: at each cache level the outermost loop level whose
// working set fits decides how often that working set is loaded.
struct MemoryFeatures {
  static constexpr int kCount = 7;
  float l1_traffic_bytes = 0;    // bytes loaded into L1 (per-core capacity)
  float l2_traffic_bytes = 0;    // bytes loaded into L2 (per-core capacity)
  float dram_traffic_bytes = 0;  // bytes loaded into the LLC (its share per running task)
  float store_bytes = 0;         // bytes stored
  float dram_bytes_per_op = 0;   // dram_traffic_bytes / ops (0 when ops is 0)
  float max_ws_over_l2 = 0;      // largest whole-stage working set / L2 size
  float tlb_misses = 0;          // pages loaded into a 64-entry TLB, the same way as cache lines
  static MemoryFeatures compute(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Buffers of intermediate Funcs: where they live and how often they are made.
struct AllocationFeatures {
  static constexpr int kCount = 9;
  float realizations = 0;             // realizations of compute_at Funcs, summed
  float max_realization_bytes = 0;    // largest allocation of one compute_at realization
  float compute_at_bytes = 0;         // allocations of one realization of every compute_at Func, summed
  float root_bytes = 0;               // allocations of intermediate Funcs at root, summed
  float redundant_points = 0;         // points_computed - points_ideal (recompute from overlaps)
  float max_recompute_ratio = 0;      // largest (realizations x region) / whole region of a compute_at Func; 0 if none
  float realizations_in_parallel = 0; // compute_at realizations inside a parallel loop, summed
  float sliding_windows = 0;          // Funcs stored around the loop they are computed at
  float window_bytes = 0;             // the rows those keep live, summed (their folded storage)
  static AllocationFeatures compute(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Per-stage cost terms, each divided by the parallel speed-up of its stage and summed: what
// a roofline model adds up. Also per computed point, which carries across workloads.
struct CostFeatures {
  static constexpr int kCount = 21;
  float compute = 0;            // arithmetic instructions per core (ops / vector lanes / speed-up)
  float load_issue = 0;         // load and store instructions per core
  float l1_fill = 0;            // bytes into L1 per core
  float l2_fill = 0;            // bytes into L2 per core
  float dram = 0;               // bytes from DRAM (shared by the cores: not divided)
  float loop_overhead = 0;      // iterations of loops neither vectorized nor unrolled, per core
  float tlb = 0;                // TLB misses per core
  float task_launches = 0;      // parallel tasks started
  float parallel_loops = 0;     // parallel loops entered (one per realization of a parallel stage)
  float serial_share = 0;       // share of operations (arithmetic and loads) in stages on one task
  float pack_copy = 0;          // bytes the packs copy per task (a serial pack: all of them)
  float bottleneck = 0;         // per stage the largest of compute, load issue and L1 lines, summed
  float compute_per_point = 0;  // compute / pipeline.points_ideal
  float load_issue_per_point = 0;  // load_issue / pipeline.points_ideal
  float l1_fill_per_point = 0;  // l1_fill / pipeline.points_ideal
  float dram_per_byte = 0;      // dram / pipeline.compulsory_bytes
  float overhead_per_point = 0; // (loop_overhead + task_launches) / pipeline.points_ideal
  float bottleneck_per_point = 0;  // bottleneck / pipeline.points_ideal
  float pack_copy_per_point = 0;   // pack_copy / pipeline.points_ideal
  float estimate_seconds = 0;   // roofline_seconds() of these terms with the default rates (roofline.h)
  float estimate_ns_per_point = 0;  // estimate_seconds in ns / pipeline.points_ideal
  static CostFeatures compute_from(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// The loop nest of one stage (all 0 when the stage does not exist).
struct LoopFeatures {
  static constexpr int kCount = 19;
  float depth = 0;                 // loops after splits
  float tasks = 0;                 // parallel tasks it runs on (own parallel loop times the enclosing one)
  float tasks_per_core = 0;        // tasks / cores
  float parallel_efficiency = 0;   // tasks / (cores x ceil(tasks / cores)); 1/cores when serial
  float points_per_task = 0;       // iterations (all realizations) / tasks
  float ops_per_task = 0;          // arithmetic (all realizations) / tasks
  float vector_width = 0;          // lanes of the vectorized loop; 1 when none
  float vector_lanes_ratio = 0;    // vector_width / native lanes
  float tail_waste = 0;            // 1 - computing iterations / loop iterations (split tails)
  float vector_innermost = 0;      // 1 when the vectorized loop is the innermost loop
  float innermost_extent = 0;      // iterations of the innermost loop
  float innermost_reduction = 0;   // 1 when the innermost loop is a reduction loop
  float unrolled_iterations = 0;   // product of the unrolled loops' extents; 1 when none
  float register_tile = 0;         // iterations of the pure loops inside the innermost reduction loop
                                   // (accumulators kept live); 0 without a reduction
  float reduction_level = 0;       // loops inside the innermost reduction loop; -1 without one
  float loop_iterations = 0;       // loop iterations executed by loops that are not vectorized or
                                   // unrolled (loop overhead), all realizations
  float realizations = 0;          // times the stage runs
  float rfactor = 0;               // 1 when split with rfactor
  float min_run_bytes = 0;         // shortest contiguous run of its reads (AccessFeatures::run_bytes)
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Working sets of one stage: the bytes of the cache lines that one iteration of each loop
// level touches (isl footprints of every buffer, the store included).
struct WorkingSetFeatures {
  static constexpr int kLevels = 6;
  static constexpr int kCount = kLevels + 4;
  float bytes[kLevels] = {};  // level k+1 (the k+1 innermost loops); the whole nest when deeper
  float full_bytes = 0;       // one whole realization of the stage
  float l1_level = 0;         // loops inside the outermost level whose working set fits L1
  float l2_level = 0;         // the same for L2
  float llc_level = 0;        // the same for the LLC share of one task
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// One of the stages with the most work.
struct StageFeatures {
  static constexpr int kCount = LoopFeatures::kCount + WorkingSetFeatures::kCount;
  LoopFeatures loop;       // its loop nest
  WorkingSetFeatures ws;   // its working sets
  // The stage ranked `rank` (0 = most work) of the schedule; zeros when there is none.
  static StageFeatures compute(const internal::FeatureInputs& in, int rank);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// One buffer (an input or a Func's realization), over every stage that reads it.
struct AccessFeatures {
  static constexpr int kCount = 13;
  float loaded_bytes = 0;     // bytes loaded from it
  float footprint_bytes = 0;  // distinct bytes one realization of each reading stage touches,
                              // times its realizations, summed
  float footprint_lines = 0;  // the same in cache lines
  float reuse = 0;            // loaded_bytes / footprint_bytes
  float inner_stride = 0;     // |address step| in elements along the innermost loop of the
                              // heaviest reader; kUnknownStride (1e6) when not affine
  float vector_stride = 0;    // the same along its vectorized loop; -1 when it is not vectorized
  float reduction_stride = 0; // the same along its innermost reduction loop that is neither
                              // unrolled nor vectorized; -1 without one
  float is_input = 0;         // 1 for a pipeline input
  float compute_at = 0;       // 1 for a Func computed at a consumer's loop
  float realizations = 0;     // times it is computed (1 for inputs and root Funcs)
  float alloc_bytes = 0;      // bytes of one realization (the whole buffer for inputs and root)
  float readers = 0;          // stages that read it
  float run_bytes = 0;        // contiguous bytes the heaviest reader reads before moving to another
                              // row: long runs stream with the hardware prefetchers, short ones do not
  static constexpr float kUnknownStride = 1e6f;
  // The buffers with the most bytes loaded, at most `count`, padded with zeros.
  static std::vector<AccessFeatures> compute(const internal::FeatureInputs& in, int count);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// The GPU kernel with the most work (CUDA schedules; every field 0 on a CPU): how its
// blocks fill the device, whether a warp's stores are coalesced, and what it stages.
struct GpuFeatures {
  static constexpr int kCount = 11;
  float kernels = 0;             // stages that run as GPU kernels (block loops), in the whole schedule
  float threads_per_block = 0;   // product of the kernel's thread-loop extents
  float blocks = 0;              // product of its block-loop extents
  float warp_utilization = 0;    // threads / (warps x 32): lanes of its warps that do work
  float occupancy = 0;           // estimated resident warps per SM / 64, limited by threads,
                                 // blocks per SM (32), shared memory and registers
  float waves = 0;               // blocks / (SMs x resident blocks per SM): rounds of blocks
  float coalesced = 0;           // min(extent, 32) / 32 of the innermost thread loop when it walks
                                 // the innermost storage dimension with unit stride; else 0
  float shared_bytes = 0;        // bytes staged at its block level (footprints from isl)
  float shared_funcs = 0;        // Funcs staged at its block level
  float register_funcs = 0;      // Funcs computed inside its threads
  float unrolled_per_thread = 0; // body copies of the unrolled loops inside its threads
  static GpuFeatures compute(const internal::FeatureInputs& in);
  static std::vector<std::string> names();
  void append_to(std::vector<float>& out) const;
};

// Stages and buffers given their own blocks of the vector.
inline constexpr int kFeatureStages = 2;
inline constexpr int kFeatureBuffers = 4;

// Names of every entry of the vector ("arith.ops", "stage0.loop.tasks", "buffer1.reuse", ...);
// size == feature_count().
std::vector<std::string> feature_names();
int feature_count();

// The vector of one schedule; deterministic, no Halide. For many schedules of one subgraph
// use FeatureExtractor (extractor.h), which caches isl results and runs in parallel.
std::vector<float> extract_features(const scheduler::Analysis& analysis, const scheduler::Schedule& schedule);

}  // namespace ktune::cost_model
