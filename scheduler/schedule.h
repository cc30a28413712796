// Schedule: plain data saying, for every Func of a subgraph, where it is computed and how
// the loops of each of its stages are split, ordered, parallelized, vectorized, unrolled
// and (for reductions) rfactored. It holds no Halide objects, so it is cheap to copy,
// hash, compare and share across threads. Its canonical JSON is its identity in the
// database; scheduler/apply.h turns it into a scheduled pipeline and Halide source.
//
//   {"funcs": [{"func": "C", "compute": {"kind": "root"},
//               "stages": [{"stage": 0, "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 16}],
//                           "order": ["x_i", "y", "x_o"], "parallel": ["x_o"], "vectorize": "x_i"}]}]}
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune::scheduler {

// The widest padding of a row (ComputeLocation::row_alignment), in values.
inline constexpr int64_t kMaxRowAlignment = 256;

// Where a Func is computed (and stored).
struct ComputeLocation {
  enum class Kind { kInline, kRoot, kAt };
  Kind kind = Kind::kRoot;
  std::string consumer;    // kAt: the consumer Func whose loop hosts the computation
  int consumer_stage = 0;  // kAt: the consumer's stage (0 = pure, k = update k-1)
  std::string loop;        // kAt: a loop of that stage, after its splits
  // kAt on a CPU: a loop of the same stage at or around `loop` where the Func's buffer is
  // kept (Halide's store_at): across the loops between the two, Halide slides a window
  // along the Func (each new row of a strip is computed once) and folds its storage to the
  // rows still read. Empty = stored where computed.
  std::string store_loop;
  // With store_loop: the window's buffer keeps this many rows (its second dimension) and
  // reuses them in turn (Halide's fold_storage), where Halide would not fold it by itself
  // (a Func read rows ahead of the loop); Halide checks at run time that they suffice.
  // 0 = Halide's choice.
  int64_t fold_rows = 0;
  // kAt on a CPU: the Func's rows (its first dimension) are stored padded to a multiple of
  // this many values (Halide's align_storage), so that every row of its buffer starts at the
  // same offset within a cache line: a window over rows of 2594 bytes otherwise has its
  // vector loads and stores split across cache lines on most rows. 0 = unpadded.
  int64_t row_alignment = 0;
  bool sliding() const { return kind == Kind::kAt && !store_loop.empty(); }
  bool operator==(const ComputeLocation& o) const;
};

// What a split does where the loop's extent is not a multiple of the factor.
enum class Tail {
  kGuard,         // the last inner iterations are skipped (GuardWithIf): never outside the region
  kShiftInwards,  // the last tile shifts back and overlaps the one before (a pure loop of a root
                  // Func without updates: the same values written twice, the vector kept whole)
  kRoundUp,       // the region is rounded up to whole tiles (a pure loop of an intermediate Func
                  // whose reads along it stay in bounds: a few extra values nobody reads)
};

// Splits `loop` into `outer` (ceil(extent / factor) iterations) and `inner` (factor).
struct LoopSplit {
  std::string loop;    // an original loop of the stage or the product of an earlier split
  std::string outer;   // name of the outer loop it becomes
  std::string inner;   // name of the inner loop it becomes
  int64_t factor = 1;  // iterations of the inner loop, >= 2
  Tail tail = Tail::kGuard;  // reduction loops always kGuard (Halide's default for them)
  bool operator==(const LoopSplit& o) const;
};

// GPU mapping of a stage (CUDA targets only; empty on CPU).
struct GpuMapping {
  std::vector<std::string> blocks;   // loops mapped to block indices, innermost first
  std::vector<std::string> threads;  // loops mapped to thread indices, innermost first
  std::string memory;                // "" (default), "shared" or "register" for compute_at producers
  bool empty() const { return blocks.empty() && threads.empty() && memory.empty(); }
  bool operator==(const GpuMapping& o) const;
};

// Splits a reduction with rfactor: `loop` (a reduction loop after splits) becomes the
// pure variable "u" of an intermediate Func "<func>_intm" computed at root. On a CPU the
// intermediate runs in parallel over u (when `loop` is an outer piece) or vectorized over
// u (inner piece). On a CUDA target it is a kernel of its own: `gpu` maps its loops (the
// stage's pure loops, "u", and the pieces of `splits`) to threads and blocks, its pure
// stage and its update alike, with the remaining reduction loops serial in each thread;
// the rfactored stage itself keeps its own `gpu` mapping for what remains of it (a
// reduction over u).
//   rows:    {"loop": "k_x_i", "gpu": {"threads": ["u"], "blocks": ["y"]}}
//   columns: {"loop": "r_x_i", "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 32}],
//             "gpu": {"threads": ["x_i", "u"], "blocks": ["x_o"]}}
struct RFactor {
  RFactor() = default;
  RFactor(std::string reduction_loop, bool vectorize) : loop(std::move(reduction_loop)), vectorize_u(vectorize) {}

  std::string loop;               // the reduction loop that becomes the intermediate's u
  bool vectorize_u = false;       // CPU: vectorize the intermediate over u instead of parallelizing it
  bool at_func = false;           // CPU, with vectorize_u: the intermediate is computed where the Func
                                  // is (the same loop of the same consumer), not at root, so a softmax
                                  // row's partial maxima are made beside the row that uses them
  int64_t pure_vector = 0;        // CPU, with u parallel: the intermediate's update runs the Func's pure
                                  // loops innermost, the innermost one split by this many lanes and
                                  // vectorized (a column sum streaming whole rows); 0 = Halide's order
  std::vector<LoopSplit> splits;  // CUDA: splits of the intermediate's pure loops, applied to both of
                                  // its stages in order; empty on a CPU
  GpuMapping gpu;                 // CUDA: the intermediate's thread loops (u among them) and block
                                  // loops, innermost first, every loop of it mapped once; no memory;
                                  // empty on a CPU
  bool on_gpu() const { return !gpu.empty() || !splits.empty(); }
  bool operator==(const RFactor& o) const;
};

// The loops of one stage (pure definition or one update).
struct StageSchedule {
  int stage = 0;                        // 0 = pure definition, k = update k-1
  std::vector<LoopSplit> splits;        // applied in order
  std::vector<std::string> order;       // every loop after splits, innermost first; empty keeps Halide's order
  std::vector<std::string> parallel;    // adjacent outermost loops, outermost first, fused into one parallel loop; empty = serial
  std::string vectorize;                // loop vectorized across its whole extent (the vector width); empty = none
  // Update stages on a CPU: a reduction piece of 2 or 4 iterations, innermost, vectorized
  // with atomic() inside the vectorized pure loop, so each vector lane sums 2 or 4 products
  // in one instruction (Halide's dot products: vpdpbusd for u8 × i8, vdpbf16ps for bf16,
  // vpmaddwd for i16). Empty = none.
  std::string vector_reduce;
  std::vector<std::string> unroll;      // loops fully unrolled
  std::optional<RFactor> rfactor;       // update stages only
  GpuMapping gpu;                       // CUDA targets only
  bool operator==(const StageSchedule& o) const;
};

// A Func's pure stage computed in the loop nest of a sibling's pure stage (Halide's
// compute_with): both are computed at the same location, they share the loops from `loop`
// outward, and each iteration of `loop` runs the sibling's loops inside it, then this
// Func's, so the two read their common input while it is in cache (Harris's Ix and Iy).
//   "compute_with": {"func": "Iy", "loop": "y"}
struct ComputeWith {
  std::string func;  // the sibling (a Func without compute_with of its own); empty = none
  std::string loop;  // the innermost shared loop: a loop of both pure stages, after splits
  bool empty() const { return func.empty(); }
  bool operator==(const ComputeWith& o) const { return func == o.func && loop == o.loop; }
};

// One Func: its compute location and its stages (only stages with decisions are listed).
struct FuncSchedule {
  std::string func;                   // Func name as in the analysis (scheduler/analysis.h)
  ComputeLocation compute;
  std::vector<StageSchedule> stages;  // at most one entry per stage, ascending
  // The Func's pure variables in the order its buffer stores them, innermost first
  // (Halide's reorder_storage): a convolution's accumulator with the output channels
  // innermost, so that a vector of channels is contiguous. Empty = the definition's order.
  // Only for a Func computed at root or at a loop that is not an output.
  std::vector<std::string> storage;
  ComputeWith compute_with;           // CPU, pure stage only; empty = its own loop nest
  // The entry of `stage`, or an empty one (Halide's defaults) when it has none.
  StageSchedule stage_or_empty(int stage) const;
  bool operator==(const FuncSchedule& o) const;
};

// A packed copy of a pipeline input (Halide's `input.in()`): computed once per iteration
// of `compute`, with its dimensions stored in `storage` order, so that the stage reading it
// walks it contiguously (attention's K transposed so that a vector of keys is contiguous,
// a convolution's weights with the output channels innermost, a matmul's B copied per
// column panel of the product, in its own order, so that the panel's rows are adjacent).
//   {"input": "K", "storage": ["y", "x", "z"], "compute": {"kind": "root"}, "vector_width": 16, "parallel": true}
struct InputPack {
  std::string input;                 // a pipeline input (buffer), by name
  std::vector<std::string> storage;  // its dimensions, innermost first in the copy: "x" is dimension 0
                                     // (the contiguous one), then "y", "z", "w", "d4", "d5", ...
  ComputeLocation compute;           // root, or a loop of the input's host: the one Func computed at root
                                     // that reads it or hosts every Func that does (host_consumer.h)
  int64_t vector_width = 0;          // the copy's loop over storage[0] vectorized this wide; 0 = scalar
  bool parallel = false;             // at root: the copy's loop over the last storage dimension is parallel
  bool operator==(const InputPack& o) const;
};

class Schedule {
 public:
  std::vector<FuncSchedule> funcs;  // in the analysis's order (producers first)
  std::vector<InputPack> packs;     // at most one per input, in the order of the inputs

  // Canonical JSON: fixed key order, defaults omitted, integers only.
  nlohmann::json to_json() const;
  // Parses a schedule. Throws ktune::UserError naming `where` and the JSON path of the
  // field that is missing or malformed.
  static Schedule from_json(const nlohmann::json& json, const std::string& where);
  // 32 hex digits of the canonical JSON text: the schedule's identity in the database.
  std::string hash() const;

  FuncSchedule* find(const std::string& func);
  const FuncSchedule* find(const std::string& func) const;

  bool operator==(const Schedule& o) const { return funcs == o.funcs && packs == o.packs; }
  bool operator!=(const Schedule& o) const { return !(*this == o); }
};

const char* to_string(ComputeLocation::Kind kind);
const char* to_string(Tail tail);  // "guard", "shift_inwards", "round_up"

// The name packs give dimension `d` of an input: x, y, z, w, then d4, d5, ...
std::string input_dim_name(int d);

}  // namespace ktune::scheduler
