// Stable names for the Funcs of a built pipeline: Halide's "$N" uniquifying suffixes
// removed (they depend on how many pipelines the process built before), and a "_2", "_3"
// suffix where two Funcs share a name. Analysis and apply use the same rule, so a
// schedule written against one pipeline applies to every fresh build of it.
#pragma once

#include <Halide.h>

#include <string>
#include <vector>

namespace ktune::scheduler {

std::vector<std::string> stable_func_names(const std::vector<Halide::Func>& funcs);

}  // namespace ktune::scheduler
