#include "scheduler/mutators/mutator.h"

#include "scheduler/space.h"

namespace ktune::scheduler {

std::optional<Schedule> Mutator::mutate(const Schedule& schedule, const Space& space, Rng& rng) const {
  std::optional<Schedule> out = propose(schedule, space, rng);
  if (!out || *out == schedule || space.validate(*out)) return std::nullopt;
  return out;
}

}  // namespace ktune::scheduler
