// The isl text of a stage: names for its loops ("d0" the outermost), the statement tuple
// over them, the set of its iterations, and the relations from its iterations to the
// elements a call reads or its definition writes. The analysis (scheduler/analysis.cc)
// builds these strings; isl parses them (scheduler/dependences.h, the cost model).
#pragma once

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace ktune::scheduler {

// A stage's iterations as isl names them.
struct StageSpace {
  std::vector<std::string> dims;            // isl dimension names, outermost first
  std::map<std::string, std::string> vars;  // Halide loop name -> isl dimension name
  std::string stmt;                         // the statement tuple "S[d0, ..., dn]"
};

// "name[d0, d1]".
std::string isl_tuple(const std::string& name, const std::vector<std::string>& dims);

// isl names for a stage's loops, given by their Halide names innermost first.
StageSpace stage_space(const std::vector<std::string>& halide_loops);

// The isl set of a stage's iterations, bounded where its loops' `ranges` (by Halide name)
// are constants.
std::string stage_domain(const StageSpace& space, const std::vector<std::string>& halide_loops,
                         const std::map<std::string, Halide::Internal::Interval>& ranges);

// The isl relation from a stage's iterations to the elements of `target_name` at `args`. An
// index that is not affine (data-dependent, a shift) reaches every element along its
// dimension only, so the affine indices still say which iterations touch which rows;
// `affine` is false when any index is not.
std::string access_relation(const StageSpace& space, const std::string& target_name,
                            const std::vector<Halide::Expr>& args, bool& affine);

}  // namespace ktune::scheduler
