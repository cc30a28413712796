#include "scheduler/sibling_windows.h"

#include <algorithm>
#include <memory>

#include "scheduler/host_consumer.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// Whether Funcs `f` and `g` (analysis indices) both read some Func or input directly.
bool share_a_producer(const Analysis& a, int f, int g) {
  for (const FuncAnalysis& producer : a.funcs) {
    const auto reads = [&](int consumer) {
      return std::any_of(producer.consumers.begin(), producer.consumers.end(),
                         [&](const std::pair<int, int>& c) { return c.first == consumer; });
    };
    if (reads(f) && reads(g)) return true;
  }
  return false;
}

}  // namespace

std::vector<SiblingPair> sibling_pairs(const Schedule& s, const Analysis& a) {
  std::vector<const FuncAnalysis*> analyses;  // per schedule position, looked up once
  for (const FuncSchedule& fs : s.funcs) analyses.push_back(a.find(fs.func));
  std::vector<SiblingPair> out;
  for (size_t f = 0; f < s.funcs.size(); ++f) {
    for (size_t g = 0; g < s.funcs.size(); ++g) {
      const FuncSchedule &fs = s.funcs[f], &gs = s.funcs[g];
      const FuncAnalysis *fa = analyses[f], *ga = analyses[g];
      if (f == g || !fa || !ga || fa->has_updates() || ga->has_updates() || fa->args != ga->args) continue;
      if (!fs.compute_with.empty() || !gs.compute_with.empty()) continue;
      if (fs.compute.kind == ComputeLocation::Kind::kInline || !(fs.compute == gs.compute)) continue;
      out.push_back({f, g});
    }
  }
  return out;
}

std::vector<std::string> sibling_loops(const Schedule& s, const Analysis& a, const SiblingPair& pair) {
  const FuncSchedule& sibling = s.funcs[pair.sibling];
  std::string error;
  const auto nest = build_loop_nest(a.find(sibling.func)->stages[0], sibling.stage_or_empty(0), &error);
  std::vector<std::string> loops;
  if (nest) {
    for (const NestLoop& loop : nest->loops) loops.push_back(loop.name);
  }
  return loops;
}

Schedule computed_with_sibling(const Schedule& s, const SiblingPair& pair, const std::string& loop) {
  Schedule out = s;
  FuncSchedule& fs = out.funcs[pair.func];
  const FuncSchedule& sibling = out.funcs[pair.sibling];
  std::vector<StageSchedule> stages = {sibling.stage_or_empty(0)};
  for (const StageSchedule& st : fs.stages) {
    if (st.stage != 0) stages.push_back(st);
  }
  fs.stages = stages;
  fs.compute_with = {sibling.func, loop};
  return out;
}

bool fuse_sibling_windows(const Analysis& a, Schedule& s) {
  if (a.target.is_gpu()) return false;
  const std::unique_ptr<Validator> validator = make_compute_with_validator();
  bool changed = false;
  for (const SiblingPair& pair : sibling_pairs(s, a)) {
    const FuncSchedule &fs = s.funcs[pair.func], &sibling = s.funcs[pair.sibling];
    // An earlier window hosts a later one, once each: pairs are re-checked against `s` as it grows.
    if (pair.sibling > pair.func || !fs.compute.sliding() || !fs.compute_with.empty()) continue;
    if (!sibling.compute_with.empty() || !share_a_producer(a, a.index_of(fs.func), a.index_of(sibling.func))) continue;
    // The innermost loop of its pure stage neither vectorized nor unrolled: x_o around x_i.
    const std::vector<ComputeLocation> loops = at_locations(a, s, a.index_of(sibling.func), 0, "");
    if (loops.empty()) continue;
    Schedule fused = computed_with_sibling(s, pair, loops.front().loop);
    if (validator->check(fused, a)) continue;
    s = std::move(fused);
    changed = true;
  }
  return changed;
}

}  // namespace ktune::scheduler
