// What computing a Func at root costs over a region of the outputs: the points of its
// buffer (its required region, widened by where its updates write), the bytes of its
// largest buffer (one per Tuple element) and of all of them, and how many points each
// stage of it evaluates. The reference plan (subgraphs/reference_plan.h) reads them.
#pragma once

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace ktune::subgraphs {

// The points of `box` (constant bounds), -1 when a bound is unknown or unbounded.
double box_points(const Halide::Internal::Box& box);

// The first dimension of `box` without a lower or an upper bound, -1 when there is none.
int unbounded_dimension(const Halide::Internal::Box& box);

// `box` (a Func's required region, bounded) widened by the elements `f`'s updates write.
Halide::Internal::Box written_box(const Halide::Internal::Function& f, const Halide::Internal::Box& box,
                                  const std::map<std::string, Halide::Expr>& known);

// Iterations of each stage of `f` (pure definition first) over `box`: its points, times the
// extents of the stage's reduction variables where they are constants.
std::vector<double> stage_iterations(const Halide::Internal::Function& f, const Halide::Internal::Box& box,
                                     const std::map<std::string, Halide::Expr>& known);

// Calls from each stage of `f` (pure definition first) to each Func, by Halide name.
std::vector<std::map<std::string, int>> calls_per_stage(const Halide::Internal::Function& f);

}  // namespace ktune::subgraphs
