// The mutator property test: over many seeded draws a mutator never returns its input,
// every result validates, and the alternatives it reaches are exactly the expected ones.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "scheduler/mutators/mutator.h"
#include "scheduler/space.h"

namespace ktune::scheduler::testing {

// Applies `mutator` to `base` `draws` times and returns describe(result) for each result.
inline std::set<std::string> reached_alternatives(const Mutator& mutator, const Schedule& base, const Space& space,
                                                  const std::function<std::string(const Schedule&)>& describe,
                                                  int draws = 400) {
  Rng rng(99);
  std::set<std::string> seen;
  for (int i = 0; i < draws; ++i) {
    const auto m = mutator.mutate(base, space, rng);
    if (!m) continue;
    EXPECT_NE(*m, base) << mutator.name() << " returned its input";
    EXPECT_EQ(space.validate(*m).value_or(""), "") << mutator.name();
    seen.insert(describe(*m));
  }
  return seen;
}

// The stage entry `stage` of `func`, or an empty one.
inline StageSchedule stage_of(const Schedule& s, const std::string& func, int stage) {
  StageSchedule out;
  out.stage = stage;
  if (const FuncSchedule* f = s.find(func)) {
    for (const StageSchedule& st : f->stages) {
      if (st.stage == stage) out = st;
    }
  }
  return out;
}

}  // namespace ktune::scheduler::testing
