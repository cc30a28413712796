// Analysis of a subgraph's algorithm, done once per (subgraph, target) before any
// schedule exists: every Func and stage, their loops with extents (from the estimates),
// the producer -> consumer graph, the isl access relations of each stage, and the legality
// facts the Space relies on (which loops carry a dependence, which reductions may be
// split with rfactor, where each Func may be computed).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scheduler/target_info.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::scheduler {

// One loop of a stage before scheduling.
struct LoopAnalysis {
  std::string name;          // Halide variable name ("x", or "k$x" for a reduction variable)
  int64_t extent = 1;        // iterations (from the estimates)
  bool is_reduction = false; // a reduction variable
  bool carries_dependence = false;  // two iterations differing in this loop touch the same
                                    // element with a write (isl): not parallel or vectorizable
};

// A call from a stage to a producer Func (or an input).
struct ProducerUse {
  int func = -1;             // index into Analysis::funcs; -1 for a pipeline input
  std::string name;          // Func name or input name
  std::string access;        // isl relation from the stage's loops to the producer's elements
  bool affine = true;        // false when `access` is a conservative over-approximation
  // An index calls likely() (a boundary condition of Halide's: the loops around it are
  // partitioned so that the interior pays nothing for its clamp or mirror).
  bool likely_index = false;
  std::vector<bool> clamped_dims;  // per index, dimension 0 first: a constant or clamped between
                                   // constants (a boundary condition: the input's bounds are their
                                   // estimates here), so computing more along it never reads
                                   // outside them
  int element_bytes = 4;     // bytes of one element of what it reads
  bool bfloat = false;       // what it reads is bf16
  std::vector<std::string> index_loops;  // loops of the calling stage that appear in the indices
  std::vector<std::string> contiguous_loops;  // those that appear in the innermost (contiguous) index;
                                              // empty for a call without arguments
  std::vector<std::vector<std::string>> dim_loops;  // per index of the call, dimension 0 first: the
                                                    // loops of the calling stage it uses
};

// A pure definition (stage 0) or an update (stage k = update k-1).
struct StageAnalysis {
  int stage = 0;
  std::vector<LoopAnalysis> loops;  // innermost first, in Halide's default nesting
                                    // (an update's reduction loops inside its pure loops)
  std::string domain;               // isl set of the stage's iterations
  std::string write;                // isl relation from iterations to the elements stored
  std::vector<ProducerUse> uses;    // every call in the stage's definition
  bool rfactor_ok = false;          // an associative update (f = f + e, *, min, max)
  int arith_ops = 0;                // arithmetic operations per iteration (+ - * / min max select, calls)
  int value_bits = 32;              // bits of the widest type its values are computed in (8 for a
                                    // u8 pipeline, 32 once anything is f32 or i32); index arithmetic
                                    // does not count
  // Lanes of one native vector of the stage's values: `target`'s f32 lanes scaled by
  // 32 / value_bits (64 u8 lanes where AVX-512 holds 16 f32).
  int native_lanes(const TargetInfo& target) const;
  // The widest vector the Space and its validators allow for the stage: four native vectors,
  // at least 64 lanes.
  int max_vector_width(const TargetInfo& target) const;
  const LoopAnalysis* find(const std::string& loop) const;
  // The n-th pure loop, innermost first, or null.
  const LoopAnalysis* pure_loop(size_t n) const;
  // The innermost reduction loop, or null for a stage without one.
  const LoopAnalysis* first_reduction() const;
  // How many reduction loops it has.
  int reduction_loop_count() const;
  // Product of the pure loops' extents: the points one run of the stage computes.
  int64_t pure_iterations() const;
};

struct FuncAnalysis {
  std::string name;                  // unique; Halide's "$N" suffixes removed
  bool is_output = false;
  std::vector<std::string> args;     // pure variables, innermost first
  std::vector<int64_t> extents;      // extent of each pure variable's region
  int element_bytes = 4;             // bytes of one stored element (the widest of a Tuple's values)
  std::vector<bool> reduced_dims;    // per pure variable: an update writes along it with reduction
                                     // variables or data (a scan along it, a scatter), so a tile of
                                     // it still runs the whole reduction
  std::vector<bool> unbounded_dims;  // per pure variable: its region has no bound (read at an index
                                     // that depends on data, clamped on one side at most); its
                                     // extent then reads 1, and the Func can only be inlined
  std::vector<StageAnalysis> stages;
  std::vector<std::pair<int, int>> consumers;  // (func index, stage) of every stage that calls it
  bool has_updates() const { return stages.size() > 1; }
  // The one consumer Func, or -1 when it has none or several.
  int single_consumer() const;
};

// A pipeline input buffer: what a pack of it (scheduler/schedule.h, InputPack) copies.
struct InputAnalysis {
  std::string name;              // as in Subgraph::inputs()
  std::vector<int64_t> extents;  // per dimension, innermost (contiguous) first
  int element_bytes = 4;         // bytes of one element
};

class Analysis {
 public:
  std::vector<FuncAnalysis> funcs;  // producers before consumers
  std::vector<InputAnalysis> inputs;  // in Subgraph::inputs() order
  TargetInfo target;
  std::string isl_status = "ok";    // "ok", or why isl analysis fell back to conservative facts

  const FuncAnalysis* find(const std::string& name) const;
  int index_of(const std::string& name) const;  // -1 if absent
  const InputAnalysis* find_input(const std::string& name) const;  // null if absent
};

// Builds the subgraph's pipeline once and analyzes it.
Analysis analyze(const subgraphs::Subgraph& subgraph, const TargetInfo& target);

// True when `loops` (a use's index_loops, contiguous_loops or one of its dim_loops) names `loop`.
bool has_loop(const std::vector<std::string>& loops, const std::string& loop);

// Identifier-safe form of a loop name ("k$x" -> "k_x") used for split products.
std::string loop_identifier(const std::string& loop);
// The name of a piece of `loop` after a split: loop_piece("k$x", "_o") is "k_x_o".
std::string loop_piece(const std::string& loop, const char* suffix);

}  // namespace ktune::scheduler
