#include "scheduler/host_consumer.h"

#include <algorithm>
#include <set>
#include <vector>

#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

ComputeLocation::Kind kind_of(const Analysis& analysis, const Schedule& schedule, int func) {
  const FuncSchedule* fs = schedule.find(analysis.funcs[func].name);
  return fs ? fs->compute.kind : ComputeLocation::Kind::kRoot;
}

// The Funcs that read `func` directly or through inlined Funcs, with the stage that reads.
// `walked` holds the inlined consumers already looked into: each is walked once, however
// many paths lead to it (a reader found twice would only be checked twice).
void collect_readers(const Analysis& analysis, const Schedule& schedule, int func, std::set<int>& walked,
                     std::vector<std::pair<int, int>>& readers) {
  for (const auto& [consumer, stage] : analysis.funcs[func].consumers) {
    if (kind_of(analysis, schedule, consumer) != ComputeLocation::Kind::kInline) {
      readers.emplace_back(consumer, stage);
    } else if (walked.insert(consumer).second) {
      collect_readers(analysis, schedule, consumer, walked, readers);
    }
  }
}

// The host of `readers` (Func, stage): each is the host itself, read by its last stage, or
// computed at a loop of the host; the host is computed at root.
AtHost host_of_readers(const Analysis& analysis, const Schedule& schedule, const std::vector<std::pair<int, int>>& readers) {
  if (readers.empty()) return {};
  int host = -1;
  std::vector<std::string> reader_loops;  // loops of the host that readers are computed at
  for (const auto& [reader, stage] : readers) {
    int h = reader;
    if (kind_of(analysis, schedule, reader) == ComputeLocation::Kind::kAt) {
      const ComputeLocation& at = schedule.find(analysis.funcs[reader].name)->compute;
      h = analysis.index_of(at.consumer);
      reader_loops.push_back(at.loop);
    } else if (stage != static_cast<int>(analysis.funcs[reader].stages.size()) - 1) {
      return {};  // read by an earlier stage of the host: Halide 14 resolves only the last
    }
    if (h < 0 || (host >= 0 && h != host)) return {};
    host = h;
  }
  if (kind_of(analysis, schedule, host) != ComputeLocation::Kind::kRoot) return {};
  AtHost result;
  result.func = host;
  result.stage = static_cast<int>(analysis.funcs[host].stages.size()) - 1;
  if (reader_loops.empty()) return result;
  const FuncSchedule* hs = schedule.find(analysis.funcs[host].name);
  StageSchedule st;
  st.stage = result.stage;
  if (hs) st = hs->stage_or_empty(result.stage);
  std::string error;
  const auto nest = build_loop_nest(analysis.funcs[host].stages[result.stage], st, &error);
  if (!nest) return {};
  int outermost = -1;
  for (const std::string& loop : reader_loops) {
    const int p = nest->position(loop);
    if (p < 0) return {};
    if (p > outermost) {
      outermost = p;
      result.innermost = loop;
    }
  }
  return result;
}

}  // namespace

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

AtHost at_host(const Analysis& analysis, const Schedule& schedule, int func) {
  std::vector<std::pair<int, int>> readers;
  std::set<int> walked;
  collect_readers(analysis, schedule, func, walked, readers);
  return host_of_readers(analysis, schedule, readers);
}

AtHost input_at_host(const Analysis& analysis, const Schedule& schedule, const std::string& input) {
  std::vector<std::pair<int, int>> readers;
  std::set<int> walked;
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    for (const StageAnalysis& sa : analysis.funcs[f].stages) {
      const bool reads = std::any_of(sa.uses.begin(), sa.uses.end(), [&](const ProducerUse& use) {
        return use.func < 0 && use.name == input;
      });
      if (!reads) continue;
      if (kind_of(analysis, schedule, static_cast<int>(f)) == ComputeLocation::Kind::kInline) {
        const int inlined = static_cast<int>(f);
        if (walked.insert(inlined).second) collect_readers(analysis, schedule, inlined, walked, readers);
      } else {
        readers.emplace_back(static_cast<int>(f), sa.stage);
      }
    }
  }
  return host_of_readers(analysis, schedule, readers);
}

std::vector<ComputeLocation> at_locations(const Analysis& analysis, const Schedule& schedule, int func, int stage,
                                          const std::string& innermost) {
  std::vector<ComputeLocation> options;
  StageSchedule st;
  st.stage = stage;
  if (const FuncSchedule* hs = schedule.find(analysis.funcs[func].name)) st = hs->stage_or_empty(stage);
  if (st.rfactor) return options;
  std::string error;
  const auto nest = build_loop_nest(analysis.funcs[func].stages[stage], st, &error);
  if (!nest) return options;
  // Loops from the innermost allowed (every reader computed inside it) outwards.
  const int first = innermost.empty() ? 0 : nest->position(innermost);
  for (size_t p = static_cast<size_t>(std::max(0, first)); p < nest->loops.size(); ++p) {
    const NestLoop& l = nest->loops[p];
    if (l.name == st.vectorize) continue;
    if (std::find(st.unroll.begin(), st.unroll.end(), l.name) != st.unroll.end()) continue;
    if (st.parallel.size() > 1 && std::find(st.parallel.begin(), st.parallel.end(), l.name) != st.parallel.end()) continue;
    options.push_back({ComputeLocation::Kind::kAt, analysis.funcs[func].name, stage, l.name});
  }
  return options;
}

}  // namespace ktune::scheduler
