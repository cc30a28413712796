// Applier: the one walk of apply() (scheduler/apply.h) over a schedule, making each Halide
// scheduling call and writing the same call as C++ text. Schedules name Funcs and loops by
// their canonical names (subgraphs/canonical_names.h); every call goes to the Halide names
// of the pipeline at hand. Its stages and compute locations are applied in applier.cc,
// rfactor (CPU and GPU) in applier_rfactor.cc.
#pragma once

#include <Halide.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"
#include "subgraphs/canonical_names.h"

namespace ktune::scheduler {

// A Func of the pipeline being scheduled: its handle and the Halide names of its loops.
struct FuncHandle {
  Halide::Func func;
  subgraphs::FuncNames names;
};

// Whether a loop of the stage at hand is a reduction loop (a Halide RVar).
using IsRVar = std::function<bool(const std::string&)>;

class Applier {
 public:
  // `inputs`: the Func through which the pipeline reads each packed input.
  Applier(const Analysis& analysis, std::map<std::string, FuncHandle> funcs, std::map<std::string, Halide::Func> inputs)
      : analysis_(analysis), funcs_(std::move(funcs)), inputs_(std::move(inputs)) {}

  // The C++ identifier of loop `loop` of the stage being scheduled (names_): its canonical
  // name made identifier-safe, "_v" appended while a Func or a packed input has that name
  // (a Func "y" and a Var "y" cannot share it), and "_2", "_3", ... when another Halide
  // variable has it already (two Funcs whose unnamed Vars are both "v").
  std::string ident(const std::string& loop);

  // Applies `schedule`: compute locations and storage, input packs, then each stage.
  void apply(const Schedule& schedule);

  // The Halide C++ source of the calls made, with the Var and RVar declarations it needs.
  std::string source(const Schedule& schedule, const std::string& workload) const;

 private:
  // Updates the schedule leaves at Halide's defaults while it schedules another stage of
  // the Func: said so explicitly, which is also what keeps Halide from warning about them.
  void mark_unscheduled_updates(const FuncSchedule& fs);

  // "  Var x("x"), y_o("y_o");" for the loops used, each under its identifier and with its
  // Halide name in this build.
  void declare(std::ostream& os, const char* kind, const std::set<std::string>& loops) const;

  // The Halide names of the loops of `func`'s stage `stage`.
  const subgraphs::StageLoopNames& stage_names(const std::string& func, int stage) const;

  // Whether `loop` of stage `stage` of `func` is a reduction loop (original or split piece).
  bool is_rvar(const std::string& func, int stage, const Schedule* schedule, const std::string& loop) const;

  // The Halide variable of loop `name` (canonical, or a split product) of the stage being
  // scheduled (names_).
  Halide::VarOrRVar loop_var(const std::string& name, bool rvar);

  // A packed copy of an input: `input.in()` at its location, its loops as pack_copy.h lays
  // them out.
  void apply_pack(const InputPack& pack, const Schedule& schedule);

  // Where the Func is computed (and stored, for a sliding window).
  void apply_compute(const FuncSchedule& fs, const Schedule& schedule);

  // A window's buffer folded to its `fold_rows` rows along its second pure variable.
  void fold_rows(const FuncSchedule& fs);
  // A buffer's rows padded to `row_alignment` values along its first pure variable.
  void align_rows(const FuncSchedule& fs);

  // Halide's compute_with: `fs`'s pure stage joins its sibling's loop nest at the loop
  // named in fs.compute_with, after every stage is split and ordered.
  void apply_compute_with(const FuncSchedule& fs);

  // A region as long as the updates' round_up tails make it: Halide sizes the buffer by what
  // the pure definition computes, and an update rounding further would write past it.
  void align_rounded_extents(const FuncSchedule& fs);

  // The Func's buffer stored with its pure variables in `storage` order, innermost first.
  void apply_storage(const FuncSchedule& fs);

  // One stage: rfactor, or its splits, order, parallel loops, GPU mapping, vectorization
  // and unrolling.
  void apply_stage(const FuncSchedule& fs, const StageSchedule& st);

  // A CPU rfactor: the reduction splits, then the intermediate "<func>_intm" (the Func's
  // pure variables, unsplit, then u) at
  // root or where the Func is, parallel or vectorized over u; with pure_vector its update
  // runs the Func's pure loops innermost, the innermost split and vectorized, then the
  // remaining reduction loops, then u. What remains of the stage (a reduction over u)
  // keeps its pure loops, the outermost of them parallel and one of them vectorized (moved
  // inside the loop over u) if asked.
  void apply_cpu_rfactor(const FuncSchedule& fs, Halide::Stage s, const std::string& label, const StageAnalysis& sa,
                         const StageSchedule& st);

  // The reduction splits of `st`, then rfactor of its rfactor loop: returns the intermediate
  // "<func>_intm", whose pure variables are the Func's and then u.
  Halide::Func split_off_intermediate(Halide::Stage s, const std::string& func, const std::string& label,
                                      const StageAnalysis& sa, const StageSchedule& st);

  // The reduction loops of `st` (after its splits) other than `rfactored`, innermost first.
  static std::vector<std::string> remaining_reductions(const StageAnalysis& sa, const StageSchedule& st,
                                                       const std::string& rfactored);

  // pure_vector: both stages of the intermediate split the Func's innermost pure loop by the
  // width and vectorize its inner piece; the update then runs [inner, the reduction pieces the
  // stage unrolls (several rows per pass over the vector), outer, the other pure loops, the
  // remaining reduction loops, u], innermost first.
  void vectorize_intermediate_pure_loop(Halide::Func intm, const std::string& iname, const StageAnalysis& sa,
                                        const StageSchedule& st, const std::vector<std::string>& reductions);

  // One split of a stage. Pure loops keep to their region by default (GuardWithIf): rounding
  // up would read inputs beyond their fixed bounds; a schedule may shift the last tile
  // inwards or round up where that is safe (scheduler/tail_strategy.h). Reduction loops use
  // Halide's default (also guarded).
  void split(Halide::Stage s, const std::string& label, const LoopSplit& sp, bool r);

  // reorder() over `loops` (innermost first); a single loop has nothing to reorder.
  void reorder(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, const IsRVar& rvar);

  // Maps `loops` (innermost first, as Halide's x, y, z) to GPU blocks or threads.
  void map_gpu(Halide::Stage s, const std::string& label, const std::vector<std::string>& loops, bool blocks,
               const IsRVar& rvar);

  // A GPU rfactor (scheduler/gpu_rfactor.h). Halide 14 takes, in this order: the
  // reduction splits; rfactor of the piece that becomes u, which returns the intermediate
  // "<func>_intm" with the Func's pure variables and then u as its arguments; the
  // intermediate's pure stage (loops: pure variables, then u) and its update (loops: u,
  // the remaining reduction pieces, the pure variables) each reordered as the reduction
  // pieces, the thread loops, the block loops, and mapped; and last what remains of the
  // stage (a reduction over u, still named after the rfactored piece) with its pure splits
  // and mapping, scheduled through the same Stage handle.
  void apply_gpu_rfactor(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
                         const StageAnalysis& sa, const StageSchedule& st, const IsRVar& rvar);

  // GPU mapping: block and thread loops (innermost first, as Halide's x, y, z) and where
  // the Func is stored. Applied after the reorder, so the loops are in their final nesting.
  void apply_gpu(Halide::Func f, Halide::Stage s, const std::string& func, const std::string& label,
                 const StageSchedule& st, const IsRVar& rvar);

  const Analysis& analysis_;
  std::map<std::string, FuncHandle> funcs_;  // by canonical name
  std::map<std::string, Halide::Func> inputs_;  // packed input -> the Func that reads it
  const subgraphs::StageLoopNames* names_ = nullptr;  // the stage being scheduled
  std::set<std::string> vars_, rvars_;                // Halide names of the loops used, for the declarations
  std::map<std::string, std::string> idents_;         // Halide name -> C++ identifier in the source
  std::set<std::string> taken_idents_;
  std::map<std::string, std::string> compute_loop_idents_;  // Func computed at a loop -> that loop's identifier
  std::ostringstream body_;
};

}  // namespace ktune::scheduler
