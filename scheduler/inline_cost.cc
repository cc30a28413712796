#include "scheduler/inline_cost.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace ktune::scheduler {
namespace {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max() / 2;

int64_t saturating_add(int64_t a, int64_t b) { return std::min(kSaturated, a + b); }

bool is_inlined(const Schedule& schedule, const FuncAnalysis& fa) {
  const FuncSchedule* fs = schedule.find(fa.name);
  return fs && fs->compute.kind == ComputeLocation::Kind::kInline;
}

// Distinct (producer, access) pairs of a stage.
std::set<std::pair<int, std::string>> distinct_reads(const StageAnalysis& sa) {
  std::set<std::pair<int, std::string>> reads;
  for (const ProducerUse& use : sa.uses) {
    if (use.func >= 0) reads.insert({use.func, use.access});
  }
  return reads;
}

// Arithmetic of stage `stage` of `func` with its inlined producers substituted; `inlined`
// memoizes the pure stage of every inlined Func (each is asked for many times).
int64_t stage_ops(const Analysis& analysis, const Schedule& schedule, int func, int stage, int depth,
                  std::map<int, int64_t>& inlined) {
  if (depth > 64) return kSaturated;  // a cycle would be a malformed analysis
  const StageAnalysis& sa = analysis.funcs[func].stages[stage];
  int64_t ops = std::max(1, sa.arith_ops);
  for (const auto& [producer, access] : distinct_reads(sa)) {
    if (producer == func || !is_inlined(schedule, analysis.funcs[producer])) continue;
    auto known = inlined.find(producer);
    if (known == inlined.end()) {
      known = inlined.emplace(producer, stage_ops(analysis, schedule, producer, 0, depth + 1, inlined)).first;
    }
    ops = saturating_add(ops, known->second);
  }
  return ops;
}

// True when stage `stage` of `func`, or an inlined Func it reads, reads at data-dependent
// indices. `walked` holds the inlined Funcs already looked into (each found not to gather):
// every Func is walked once, however many paths lead to it.
bool gathers_from(const Analysis& analysis, const Schedule& schedule, int func, int stage, std::set<int>& walked) {
  for (const ProducerUse& use : analysis.funcs[func].stages[stage].uses) {
    if (!use.affine) return true;
    if (use.func < 0 || use.func == func || !is_inlined(schedule, analysis.funcs[use.func])) continue;
    if (walked.insert(use.func).second && gathers_from(analysis, schedule, use.func, 0, walked)) return true;
  }
  return false;
}

}  // namespace

bool reads_at_data(const StageAnalysis& reader, int func) {
  for (const ProducerUse& use : reader.uses) {
    if (use.func == func && !use.affine) return true;
  }
  return false;
}

bool gathers(const Analysis& analysis, const Schedule& schedule, int func, int stage) {
  std::set<int> walked;
  return gathers_from(analysis, schedule, func, stage, walked);
}

int widest_vector(const Analysis& analysis, const Schedule& schedule, int func, int stage) {
  const StageAnalysis& sa = analysis.funcs[func].stages[stage];
  return gathers(analysis, schedule, func, stage) ? sa.native_lanes(analysis.target) : sa.max_vector_width(analysis.target);
}

void narrow_gathering_vectors(const Analysis& analysis, Schedule& schedule) {
  for (FuncSchedule& f : schedule.funcs) {
    const int func = analysis.index_of(f.func);
    if (func < 0) continue;
    for (StageSchedule& st : f.stages) {
      if (st.vectorize.empty()) continue;
      const int widest = widest_vector(analysis, schedule, func, st.stage);
      for (LoopSplit& split : st.splits) {
        if (split.inner == st.vectorize && split.factor > widest) split.factor = widest;
      }
    }
  }
}

int64_t inlined_ops(const Analysis& analysis, const Schedule& schedule, int func, int stage) {
  std::map<int, int64_t> inlined;
  return stage_ops(analysis, schedule, func, stage, 0, inlined);
}

bool reads_a_stencil_of(const Analysis& analysis, int consumer, int stage, int producer) {
  int points = 0;
  for (const auto& [func, access] : distinct_reads(analysis.funcs[consumer].stages[stage])) {
    if (func == producer) ++points;
  }
  return points > 1;
}

}  // namespace ktune::scheduler
