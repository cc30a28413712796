// Names for the Funcs and loop variables of a built pipeline that are the same in every
// build of the same algorithm, in any process, after any number of earlier builds. Halide
// names what the user left unnamed from process-wide counters (`Func f;` is "f12",
// BoundaryConditions' wrapper "lambda_3", `Var x;` "v7", an RDom "r86" with variables
// "r86$x"), and appends "$N" to a name made twice. Stored schedules address Funcs and loops
// by these canonical names; apply translates them back to the Halide names of the build at
// hand.
//
// The rule: "$N" suffixes are dropped; a counter name (f<digits>, lambda_<digits>,
// v<digits>, r<digits> before an RDom variable's '$') keeps only its prefix ("f", "lambda",
// "v", "r"); characters outside [A-Za-z0-9_] become '_' (the RDom '$' stays, as in "r$x");
// a name taken earlier in the order gets "_2", "_3", ... Funcs are numbered in
// pipeline_funcs order (producers first, a structural order), loops of a stage innermost
// first, so the same algorithm always gets the same names.
#pragma once

#include <Halide.h>

#include <string>
#include <utility>
#include <vector>

namespace ktune::subgraphs {

// The loop variables of one stage: canonical name and Halide name, innermost first.
struct StageLoopNames {
  std::vector<std::pair<std::string, std::string>> loops;  // (canonical, Halide)
  // The Halide name of canonical `name`; `name` itself when it is not an original loop
  // (a split product, which the schedule names itself).
  std::string halide(const std::string& name) const;
  // The canonical name of Halide variable `name`; `name` itself when it is not a loop.
  std::string canonical(const std::string& name) const;
};

// One Func: its canonical name, its pure variables (canonical, innermost first) and the
// loops of each stage (0 = pure definition, k = update k-1).
struct FuncNames {
  std::string name;
  std::string halide_name;             // Func::name() in this build
  std::vector<std::string> args;       // canonical pure variables, innermost first
  std::vector<StageLoopNames> stages;
};

// Canonical names of `funcs` (pipeline_funcs order), one entry per Func.
std::vector<FuncNames> canonical_names(const std::vector<Halide::Func>& funcs);

// The canonical form of one Func name, before deduplication ("lambda_12$3" -> "lambda").
std::string canonical_func_base(const std::string& halide_name);

}  // namespace ktune::subgraphs
