// What every feature group reads: the analysis, the precomputed pipeline facts, one
// schedule's model, and the per-stage quantities several groups share (work, tasks,
// working sets, cache fit levels), computed once.
#pragma once

#include <cstdint>
#include <vector>

#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"
#include "scheduler/analysis.h"

namespace ktune::cost_model::internal {

// Quantities of one running stage, all realizations included unless stated.
struct StageMetrics {
  double points = 0;           // iterations that compute
  double iterations = 0;       // loop iterations (split tails rounded up)
  double ops = 0;              // arithmetic operations
  double loads = 0;            // elements loaded
  double work = 0;             // points x (ops + loads + 1) per iteration: ranks the stages
  int64_t tasks = 1;           // parallel tasks (own parallel loop times the enclosing one)
  double speedup = 1;          // tasks / ceil(tasks / cores): whole rounds of tasks on the cores
  double lanes = 1;            // vector lanes doing useful work per instruction (min(width, native))
  bool auto_vector = false;    // not vectorized, but the innermost loop is one LLVM vectorizes itself
                               // (unit or zero address steps, at least the native lanes long)
  double loads_dense = 0;      // elements loaded by vector loads with address step +-1
  double loads_broadcast = 0;  // elements loaded by vectorized loads with step 0
  double loads_strided = 0;    // elements loaded by vectorized loads with another step (gathers)
  double loads_scalar = 0;     // elements loaded outside vectorized loops
  double load_instructions = 0;  // loads and stores issued (vector loads count once)
  double l1_traffic = 0;       // bytes loaded into L1 (see MemoryFeatures)
  double l2_traffic = 0;       // bytes loaded into L2
  double dram_traffic = 0;     // bytes loaded into the LLC
  std::vector<int64_t> ws_pages;  // per level k = 0..depth: pages touched
  double tlb_misses = 0;       // pages loaded into the TLB (see kTlbEntries)
  double loop_overhead = 0;    // iterations of loops neither vectorized nor unrolled
  double launches = 0;         // parallel tasks started (own parallel loop, every realization)
  std::vector<int64_t> ws_bytes;  // per level k = 0..depth: bytes of the cache lines touched
  int l1_level = 0;            // outermost level whose working set fits L1
  int l2_level = 0;            // the same for L2
  int llc_level = 0;           // the same for this stage's share of the LLC
};

// Pages the first-level data TLB holds (64 on current x86 and Arm cores).
inline constexpr double kTlbEntries = 64;

struct FeatureInputs {
  const scheduler::Analysis& analysis;  // the subgraph
  const PipelineFacts& facts;           // its precomputed facts
  const ScheduleModel& model;           // the schedule
  std::vector<StageMetrics> metrics;    // per model.stages entry
  std::vector<int> by_work;             // indices into model.stages, most work first
  double compulsory_bytes = 0;          // every input read once, every output written once
  double points_ideal = 0;              // iterations of the running stages, each computed once
};

FeatureInputs make_feature_inputs(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                  const ScheduleModel& model);

// Largest level k in [0, depth] with ws_bytes[k] <= capacity (0 when none fits).
int fit_level(const std::vector<int64_t>& ws_bytes, double capacity);

// Contiguous bytes an access group reads before it moves to another row of its buffer:
// dimension 0 of its footprint at the outermost loop level that adds no rows (what
// hardware prefetchers see as one stream). 0 when the footprints are unknown.
int64_t run_bytes(const AccessGroupModel& g, int64_t element_bytes);

// LLC bytes available to one task of a stage running on `tasks` tasks.
double llc_share(const scheduler::TargetInfo& target, int64_t tasks);

// The feature vector of one schedule, group after group (features.h).
std::vector<float> assemble(const FeatureInputs& in);

}  // namespace ktune::cost_model::internal
