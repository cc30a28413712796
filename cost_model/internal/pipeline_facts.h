// PipelineFacts: what feature extraction needs from an Analysis, computed once with isl
// (single-threaded) and kept as plain data that threads share: the box of every stage's
// iterations, the region of every buffer (Funcs and inputs), and the linear coefficients
// of every access, so that strides need no isl per schedule.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/analysis.h"

namespace ktune::cost_model::internal {

// Bytes of one cache line.
inline constexpr int64_t kLineBytes = 64;
// Bytes of one virtual memory page.
inline constexpr int64_t kPageBytes = 4096;

// A buffer that stages read or write: a Func's realization or a pipeline input.
struct BufferFacts {
  std::string name;             // Func or input name
  int func = -1;                // index into Analysis::funcs; -1 for an input
  std::vector<int64_t> lo;      // smallest index per dimension (dimension 0 is contiguous)
  std::vector<int64_t> extent;  // elements per dimension; empty when unknown (an input read only non-affinely)
  int64_t element_bytes = 4;    // bytes of one element (1 for u8, 2 for f16, 4 for f32)
  int64_t elements() const;     // product of `extent` (0 when unknown)
};

// One access of a stage (a call in its definition).
struct UseFacts {
  int buffer = -1;  // index into PipelineFacts::buffers
  int use = 0;      // index into StageAnalysis::uses
  bool affine = true;  // false: the access relation is an over-approximation
  // coeff[b][d]: change of the buffer index in dimension b per step of the stage's isl
  // dimension d (outermost first), measured in the middle of the domain; empty when the
  // access is not affine.
  std::vector<std::vector<int64_t>> coeff;
};

// One stage of one Func.
struct StageFacts {
  int func = 0;                 // index into Analysis::funcs
  int stage = 0;                // 0 = pure definition, k = update k-1
  int id = 0;                   // index into PipelineFacts::stage_ids (stable stage id)
  std::vector<int64_t> lo;      // per isl dimension (outermost first): first iteration
  std::vector<int64_t> extent;  // per isl dimension: iterations
  int arith_ops = 0;            // arithmetic per iteration (Analysis)
  std::vector<UseFacts> uses;   // one per StageAnalysis::uses entry, same order
  // Coefficients of the store to the Func's own buffer, as UseFacts::coeff.
  std::vector<std::vector<int64_t>> write_coeff;
  // isl dimension of each loop of StageAnalysis::loops (innermost first).
  std::vector<int> loop_dim;
  int64_t points() const;       // product of `extent`
};

struct PipelineFacts {
  std::vector<BufferFacts> buffers;              // Funcs first (buffer i is Func i), then inputs
  std::vector<std::vector<StageFacts>> stages;   // [func][stage]
  std::vector<std::pair<int, int>> stage_ids;    // (func, stage) of every stage id
  int input_buffer(const std::string& name) const;  // -1 if absent
};

// Analyzes the domains and accesses with a private isl context. Accesses that isl cannot
// evaluate keep empty coefficients; nothing throws for a well-formed Analysis.
PipelineFacts build_pipeline_facts(const scheduler::Analysis& analysis);

// Address step, in elements, of an access whose index changes by `delta[b]` per dimension
// b of a buffer with the given extents (dimension 0 contiguous).
int64_t linear_step(const std::vector<int64_t>& delta, const std::vector<int64_t>& extents);
// The same for a copy of the buffer stored with its dimensions in `order` (innermost first;
// a pack, scheduler::InputPack); an empty order is the buffer's own.
int64_t linear_step(const std::vector<int64_t>& delta, const std::vector<int64_t>& extents,
                    const std::vector<int>& order);

}  // namespace ktune::cost_model::internal
