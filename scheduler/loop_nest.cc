#include "scheduler/loop_nest.h"

#include <algorithm>
#include <set>

namespace ktune::scheduler {

const NestLoop* LoopNest::find(const std::string& name) const {
  const int p = position(name);
  return p < 0 ? nullptr : &loops[p];
}

int LoopNest::position(const std::string& name) const {
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<LoopNest> build_loop_nest(const StageAnalysis& analysis, const StageSchedule& stage, std::string* error) {
  LoopNest nest;
  for (const LoopAnalysis& l : analysis.loops) {
    nest.loops.push_back({l.name, l.extent, l.name, l.is_reduction, l.carries_dependence, true});
  }
  for (const LoopSplit& split : stage.splits) {
    const int p = nest.position(split.loop);
    if (p < 0) {
      *error = "split of unknown loop \"" + split.loop + "\"";
      return std::nullopt;
    }
    if (split.outer == split.inner || (nest.position(split.outer) >= 0 && split.outer != split.loop) ||
        nest.position(split.inner) >= 0) {
      *error = "split of \"" + split.loop + "\" reuses a loop name";
      return std::nullopt;
    }
    if (split.factor < 2) {
      *error = "split of \"" + split.loop + "\" has factor " + std::to_string(split.factor) + " (expected >= 2)";
      return std::nullopt;
    }
    NestLoop outer = nest.loops[p];
    NestLoop inner = nest.loops[p];
    outer.name = split.outer;
    outer.extent = (nest.loops[p].extent + split.factor - 1) / split.factor;
    outer.innermost_piece = false;
    inner.name = split.inner;
    inner.extent = split.factor;
    nest.loops[p] = inner;
    nest.loops.insert(nest.loops.begin() + p + 1, outer);
  }
  if (!stage.order.empty()) {
    if (stage.order.size() != nest.loops.size()) {
      *error = "order lists " + std::to_string(stage.order.size()) + " loops, the stage has " +
               std::to_string(nest.loops.size());
      return std::nullopt;
    }
    std::vector<NestLoop> ordered;
    std::set<std::string> seen;
    for (const std::string& name : stage.order) {
      const NestLoop* l = nest.find(name);
      if (!l || !seen.insert(name).second) {
        *error = "order names \"" + name + "\" " + (l ? "twice" : "which is not a loop of the stage");
        return std::nullopt;
      }
      ordered.push_back(*l);
    }
    nest.loops = ordered;
  }
  return nest;
}

bool splits_reduction(const StageAnalysis& analysis, const StageSchedule& stage, const LoopSplit& split) {
  std::string loop = split.loop;
  for (size_t step = 0; step <= stage.splits.size(); ++step) {
    if (const LoopAnalysis* l = analysis.find(loop)) return l->is_reduction;
    const auto earlier = std::find_if(stage.splits.begin(), stage.splits.end(), [&](const LoopSplit& other) {
      return other.outer == loop || other.inner == loop;
    });
    if (earlier == stage.splits.end()) return false;
    loop = earlier->loop;
  }
  return false;
}

}  // namespace ktune::scheduler
