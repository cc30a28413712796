#include "scheduler/gpu_footprint.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "scheduler/isl_context.h"
#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

// Relations from the iterations of a Func's pure stage to the elements of `producer` it
// reads through Funcs the schedule inlines, by inlined Func: each is worked out once,
// however many paths lead to it.
using InlinedReads = std::map<int, std::optional<isl::map>>;

// Relations from a stage's iterations to the elements of `producer` it reads, directly or
// through Funcs the schedule inlines. Empty when the stage does not read it.
std::optional<isl::map> reads_of(const Analysis& a, const Schedule& s, const StageAnalysis& sa, int producer,
                                 isl::ctx ctx, InlinedReads& inlined_reads) {
  std::optional<isl::map> all;
  for (const ProducerUse& use : sa.uses) {
    if (use.func < 0 || use.access.empty()) continue;
    std::optional<isl::map> m;
    if (use.func == producer) {
      m = isl::map(ctx, use.access);
    } else {
      const FuncSchedule* fs = s.find(a.funcs[use.func].name);
      if (!fs || fs->compute.kind != ComputeLocation::Kind::kInline) continue;
      const StageAnalysis& inlined = a.funcs[use.func].stages[0];
      auto known = inlined_reads.find(use.func);
      if (known == inlined_reads.end()) {
        inlined_reads[use.func] = std::nullopt;  // a cycle, which a pipeline never has, reads nothing
        known = inlined_reads.insert_or_assign(use.func, reads_of(a, s, inlined, producer, ctx, inlined_reads)).first;
      }
      if (!known->second) continue;
      m = isl::map(ctx, use.access).apply_range(isl::map(ctx, inlined.write).reverse()).apply_range(*known->second);
    }
    all = all ? all->unite(*m) : *m;
  }
  return all;
}

}  // namespace

std::optional<int64_t> producer_footprint(const Analysis& a, const Schedule& s, int producer, const ComputeLocation& at) {
  const int consumer = a.index_of(at.consumer);
  if (consumer < 0 || at.consumer_stage >= static_cast<int>(a.funcs[consumer].stages.size())) return std::nullopt;
  const StageAnalysis& sa = a.funcs[consumer].stages[at.consumer_stage];
  StageSchedule st;
  st.stage = at.consumer_stage;
  if (const FuncSchedule* cs = s.find(at.consumer)) st = cs->stage_or_empty(at.consumer_stage);
  std::string error;
  const auto nest = build_loop_nest(sa, st, &error);
  if (!nest) return std::nullopt;
  const int p = nest->position(at.loop);
  if (p < 0) return std::nullopt;
  thread_local IslContext isl(500'000);
  isl.reset_operations();
  try {
    const isl::ctx ctx = isl.ctx();
    InlinedReads inlined_reads;
    const auto reads = reads_of(a, s, sa, producer, ctx, inlined_reads);
    if (!reads) return 0;
    const isl::set domain(ctx, sa.domain);
    // The consumer's iterations inside `at`: each original loop spans the product of its
    // pieces inside the loop, starting from the domain's first iteration.
    const int n = static_cast<int>(sa.loops.size());
    std::string vars, cons;
    for (int d = 0; d < n; ++d) {
      const LoopAnalysis& l = sa.loops[n - 1 - d];  // isl dims are outermost first
      int64_t span = 1;
      for (int i = 0; i < p; ++i) {
        if (nest->loops[i].origin == l.name) span *= nest->loops[i].extent;
      }
      span = std::min(span, l.extent);
      const isl::val lo = domain.dim_min_val(d);
      if (!lo.is_int()) return std::nullopt;
      const std::string v = "d" + std::to_string(d);
      vars += (d ? ", " : "") + v;
      cons += (d ? " and " : "") + std::to_string(lo.get_num_si()) + " <= " + v + " <= " +
              std::to_string(lo.get_num_si() + span - 1);
    }
    // Statements are named S (scheduler/analysis.cc).
    const isl::set tile = isl::set(ctx, "{ S[" + vars + "] : " + cons + " }").intersect(domain);
    const isl::set image = tile.apply(*reads);
    if (image.is_empty()) return 0;
    int64_t elements = 1;
    const int dims = static_cast<int>(image.tuple_dim());
    for (int d = 0; d < dims; ++d) {
      const isl::val lo = image.dim_min_val(d), hi = image.dim_max_val(d);
      if (!lo.is_int() || !hi.is_int()) return std::nullopt;
      elements *= hi.get_num_si() - lo.get_num_si() + 1;
    }
    return elements;
  } catch (const isl::exception&) {
    return std::nullopt;
  }
}

}  // namespace ktune::scheduler
