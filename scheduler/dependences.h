// Which loops of one stage carry a dependence, from isl's dataflow analysis of the
// stage's accesses to its own Func. A loop carries a dependence when two iterations that
// differ in it touch the same element and one of them writes it: such a loop may not be
// run in parallel or vectorized (a race) unless the reduction is split with rfactor.
#pragma once

#include <string>
#include <vector>

#include "scheduler/isl_context.h"

namespace ktune::scheduler {

struct LoopDependences {
  std::vector<bool> carries;  // per loop of the domain tuple, outermost first
  std::string status = "ok";  // "ok", or why the answer is conservative (all loops carry)
};

// `domain`: isl set `{ S[d0, ..., dn] : ... }` in execution order (outermost first).
// `writes` and `self_reads`: isl relations from S to the stage's own Func, exact or
// over-approximated (an iteration may reach several elements). The stage runs in
// lexicographic order of its tuple.
LoopDependences loop_dependences(const IslContext& isl, const std::string& domain, const std::string& writes,
                                 const std::string& self_reads, int dims);

}  // namespace ktune::scheduler
