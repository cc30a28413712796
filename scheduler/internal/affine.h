// Halide index expressions as isl quasi-affine expressions: integer constants, loop
// variables, + and -, multiplication and floor division by constants, mod, min and max.
// Anything else is not affine and the caller over-approximates the access.
#pragma once

#include <Halide.h>

#include <map>
#include <optional>
#include <string>

namespace ktune::scheduler {

// `vars` maps Halide variable names to isl names. Returns nullopt if `e` is not affine in them.
std::optional<std::string> to_isl_affine(const Halide::Expr& e, const std::map<std::string, std::string>& vars);

}  // namespace ktune::scheduler
