#include "scheduler/host_consumer.h"

namespace ktune::scheduler {

std::pair<int, int> host_consumer(const Analysis& analysis, const Schedule& schedule, int func) {
  int current = func;
  for (size_t guard = 0; guard <= analysis.funcs.size(); ++guard) {
    const FuncAnalysis& fa = analysis.funcs[current];
    const int consumer = fa.single_consumer();
    if (consumer < 0) return {-1, -1};
    const FuncSchedule* cs = schedule.find(analysis.funcs[consumer].name);
    if (cs && cs->compute.kind == ComputeLocation::Kind::kInline) {
      current = consumer;
      continue;
    }
    int stage = -1;
    for (const auto& [f, s] : fa.consumers) {
      if (f == consumer) stage = std::max(stage, s);
    }
    return {consumer, stage};
  }
  return {-1, -1};
}

}  // namespace ktune::scheduler
