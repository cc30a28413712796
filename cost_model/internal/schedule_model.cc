// Entry point: build_schedule_model() walks the Funcs from the outputs back to the inputs
// (a compute_at producer needs its host's loops), building each stage's loop nest
// (build_loops), its accesses through inlined Funcs (stage_accesses.h) and the footprints
// of every loop level (stage_footprints.h).
#include "cost_model/internal/schedule_model.h"

#include <algorithm>
#include <utility>

#include "cost_model/internal/stage_accesses.h"
#include "cost_model/internal/stage_footprints.h"
#include "scheduler/input_pack.h"

namespace ktune::cost_model::internal {
namespace {

using scheduler::ComputeLocation;

const scheduler::StageSchedule* find_stage(const scheduler::FuncSchedule* fs, int stage) {
  if (!fs) return nullptr;
  for (const scheduler::StageSchedule& st : fs->stages) {
    if (st.stage == stage) return &st;
  }
  return nullptr;
}

// The loops of a stage after the schedule's splits and order, with the flags set.
void build_loops(const scheduler::StageAnalysis& sa, const StageFacts& st, const scheduler::StageSchedule* sched,
                 StageModel& sm, ScheduleModel& model) {
  for (size_t l = 0; l < sa.loops.size(); ++l) {
    LoopModel loop;
    loop.name = sa.loops[l].name;
    loop.dim = st.loop_dim[l];
    loop.extent = sm.dim_extent[loop.dim];
    loop.reduction = sa.loops[l].is_reduction;
    sm.loops.push_back(loop);
  }
  if (!sched) return;
  for (const scheduler::LoopSplit& split : sched->splits) {
    const int p = position(sm.loops, split.loop);
    if (p < 0 || split.factor < 2) {
      ++model.unknown_loops;
      continue;
    }
    LoopModel inner = sm.loops[p];
    LoopModel outer = sm.loops[p];
    inner.name = split.inner;
    inner.extent = split.factor;
    outer.name = split.outer;
    outer.extent = (sm.loops[p].extent + split.factor - 1) / split.factor;
    outer.stride = sm.loops[p].stride * split.factor;
    sm.loops[p] = inner;
    sm.loops.insert(sm.loops.begin() + p + 1, outer);
  }
  if (!sched->order.empty()) {
    std::vector<LoopModel> ordered;
    for (const std::string& name : sched->order) {
      const int p = position(sm.loops, name);
      if (p >= 0 && position(ordered, name) < 0) ordered.push_back(sm.loops[p]);
    }
    if (ordered.size() == sm.loops.size()) {
      sm.loops = std::move(ordered);
    } else {
      ++model.unknown_loops;
    }
  }
  auto mark = [&](const std::string& name, bool LoopModel::*flag) {
    const int p = position(sm.loops, name);
    if (p < 0) {
      ++model.unknown_loops;
      return;
    }
    sm.loops[p].*flag = true;
  };
  for (const std::string& name : sched->parallel) mark(name, &LoopModel::parallel);
  if (!sched->vectorize.empty()) mark(sched->vectorize, &LoopModel::vectorized);
  for (const std::string& name : sched->unroll) mark(name, &LoopModel::unrolled);
  for (const std::string& name : sched->gpu.blocks) mark(name, &LoopModel::gpu_block);
  for (const std::string& name : sched->gpu.threads) mark(name, &LoopModel::gpu_thread);
  if (sched->rfactor) {
    // The intermediate runs the chosen reduction piece as its pure variable u: in
    // parallel or vectorized on a CPU, on GPU threads on a CUDA target.
    sm.rfactor = true;
    ++model.rfactor_stages;
    const scheduler::RFactor& rf = *sched->rfactor;
    mark(rf.loop, rf.on_gpu() ? &LoopModel::gpu_thread : rf.vectorize_u ? &LoopModel::vectorized : &LoopModel::parallel);
    model.rfactor_at_func += rf.at_func;
    if (rf.pure_vector && sa.pure_loop(0)) {
      // The intermediate streams rows into vectors along the Func's innermost pure loop: the
      // loop itself, or its innermost piece where the stage splits it.
      ++model.rfactor_pure_vector;
      const int dim = st.loop_dim[static_cast<size_t>(sa.pure_loop(0) - sa.loops.data())];
      for (LoopModel& loop : sm.loops) {
        if (!loop.reduction && loop.dim == dim && loop.stride == 1) loop.vectorized = true;
      }
    }
  }
}

// Counts a stage with a vectorized reduction piece (StageSchedule::vector_reduce) and widens
// its vectors by the piece's iterations.
void add_vector_reduce(const scheduler::StageSchedule& ss, StageModel& sm, ScheduleModel& model) {
  ++model.vector_reduce_stages;
  for (const LoopModel& l : sm.loops) {
    if (l.name != ss.vector_reduce) continue;
    sm.vector_width *= l.extent;
    model.vector_reduce_factor = std::max<int>(model.vector_reduce_factor, static_cast<int>(l.extent));
  }
}

// A producer computed in a tile group (at a loop of a host that does not read it, beside
// the Funcs that do): one realization covers what those readers, computed at the same host,
// read of it in one realization each, so its region is at most the largest of those.
void cut_to_readers(const ScheduleModel& model, int host_stage, int buffer, std::vector<int64_t>& region) {
  std::vector<int64_t> needed(region.size(), 0);
  bool found = false;
  for (const StageModel& reader : model.stages) {
    if (reader.host_stage != host_stage) continue;
    for (const AccessGroupModel& g : reader.groups) {
      if (g.buffer != buffer || g.store || g.levels.empty()) continue;
      const Footprint* whole = g.levels.back();
      if (whole->box.extent.size() != region.size()) continue;
      for (size_t a = 0; a < region.size(); ++a) needed[a] = std::max(needed[a], whole->box.extent[a]);
      found = true;
    }
  }
  if (!found) return;
  for (size_t a = 0; a < region.size(); ++a) region[a] = std::min(region[a], std::max<int64_t>(1, needed[a]));
}

// The elements of a sliding window's buffer that stay live: what one iteration of the
// host's compute level reads of `buffer` where the host reads it, else (the window read by
// other windows of the same strip) the strip's `region` shared among the compute loop's
// iterations in it.
int64_t window_elements(const StageModel& host, int buffer, int compute_level, int store_level,
                        const std::vector<int64_t>& region) {
  int64_t strip = 1;
  for (int64_t e : region) strip *= e;
  for (const AccessGroupModel& g : host.groups) {
    if (g.buffer != buffer || g.store || compute_level >= static_cast<int>(g.levels.size())) continue;
    int64_t live = 1;
    for (int64_t e : g.levels[compute_level]->box.extent) live *= e;
    return std::min(strip, live);
  }
  const int64_t steps = std::max<int64_t>(1, host.executions(compute_level) / std::max<int64_t>(1, host.executions(store_level)));
  return std::max<int64_t>(1, strip / steps);
}

// The storage order of every packed input, and the bytes the packs copy (each input element
// once: a pack at a loop copies the part of the input that loop's iteration reads).
void add_packs(const scheduler::Analysis& analysis, const PipelineFacts& facts, const scheduler::Schedule& schedule,
               ScheduleModel& model) {
  for (const scheduler::InputPack& pack : schedule.packs) {
    const int buffer = facts.input_buffer(pack.input);
    const scheduler::InputAnalysis* input = analysis.find_input(pack.input);
    if (buffer < 0 || !input) continue;
    std::vector<int> order;
    for (const std::string& dim : pack.storage) {
      const int d = scheduler::input_dim_index(*input, dim);
      if (d >= 0) order.push_back(d);
    }
    if (order.size() != input->extents.size()) continue;
    model.storage_orders[buffer] = order;
    ++model.packed_inputs;
    double elements = 1;
    for (int64_t e : input->extents) elements *= static_cast<double>(e);
    model.packed_bytes += elements * input->element_bytes;
  }
}

// Realizations of `pack` and the tasks that share its copying: one copy per iteration of its
// loop, split among the host's tasks when the loop is inside (or is) the host's parallel
// loop; a root pack once, its outermost loop with more than one iteration parallel when it
// says so. {0, 1} when its loop is not in the model.
std::pair<int64_t, int64_t> pack_runs(const scheduler::Analysis& analysis, const ScheduleModel& model,
                                      const scheduler::InputPack& pack) {
  const int64_t cores = std::max(1, analysis.target.cores);
  if (pack.compute.kind != ComputeLocation::Kind::kAt) {
    if (!pack.parallel) return {1, 1};
    const scheduler::InputAnalysis* input = analysis.find_input(pack.input);
    for (auto dim = pack.storage.rbegin(); input && dim != pack.storage.rend(); ++dim) {
      const int d = scheduler::input_dim_index(*input, *dim);
      if (d >= 0 && input->extents[d] > 1) return {1, std::min(cores, input->extents[d])};
    }
    return {1, 1};
  }
  const int host_func = analysis.index_of(pack.compute.consumer);
  for (const StageModel& host : model.stages) {
    if (host.func != host_func || host.stage != pack.compute.consumer_stage) continue;
    const int p = position(host.loops, pack.compute.loop);
    if (p < 0) break;
    bool inside_parallel = false;
    for (int q = p; q < host.depth(); ++q) inside_parallel |= host.loops[q].parallel;
    const int64_t tasks = host.outer_tasks * (inside_parallel ? host.tasks : 1);
    return {host.realizations * host.executions(p), std::min(cores, tasks)};
  }
  return {0, 1};
}

// The bytes every pack copies, all realizations counted, in total and per task.
void add_pack_copies(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                     const scheduler::Schedule& schedule, ScheduleModel& model) {
  for (const scheduler::InputPack& pack : schedule.packs) {
    const int buffer = facts.input_buffer(pack.input);
    const scheduler::InputAnalysis* input = analysis.find_input(pack.input);
    if (buffer < 0 || !input) continue;
    std::vector<int64_t> region = input->extents;
    if (pack.compute.kind == ComputeLocation::Kind::kAt) {
      const std::vector<int64_t> part = pack_region(analysis, model, pack, buffer);
      for (size_t d = 0; d < part.size() && d < region.size(); ++d) {
        region[d] = std::clamp<int64_t>(part[d], 1, region[d]);
      }
    }
    double bytes = input->element_bytes;
    for (int64_t e : region) bytes *= static_cast<double>(e);
    const auto [runs, tasks] = pack_runs(analysis, model, pack);
    model.pack_copied_bytes += bytes * static_cast<double>(runs);
    model.pack_copied_bytes_per_task += bytes * static_cast<double>(runs) / static_cast<double>(tasks);
  }
}

// The storage order of every Func stored in another order than its definition's (reads of
// it, and its own stores, step through that order).
void add_func_storage(const scheduler::Analysis& analysis, const scheduler::Schedule& schedule, ScheduleModel& model) {
  for (int f = 0; f < static_cast<int>(analysis.funcs.size()); ++f) {
    const scheduler::FuncAnalysis& fa = analysis.funcs[f];
    const scheduler::FuncSchedule* fs = schedule.find(fa.name);
    if (!fs || fs->storage.size() != fa.args.size()) continue;
    std::vector<int> order;
    for (const std::string& var : fs->storage) {
      const auto it = std::find(fa.args.begin(), fa.args.end(), var);
      if (it != fa.args.end()) order.push_back(static_cast<int>(it - fa.args.begin()));
    }
    if (order.size() != fa.args.size()) continue;
    model.storage_orders[f] = order;
    ++model.reordered_funcs;
  }
}

// What build_schedule_model reads while it walks the Funcs: the analysis, the facts, the
// footprint cache, and per Func its schedule (null when unlisted) and whether it is inlined.
struct ModelInputs {
  const scheduler::Analysis& analysis;
  const PipelineFacts& facts;
  FootprintCache& cache;
  std::vector<const scheduler::FuncSchedule*> sched;
  std::vector<bool> inlined;
};

// Each Func's compute kind. Halide's default for an unlisted Func is inline; outputs and
// Funcs with updates cannot be inlined.
void resolve_compute_kinds(const scheduler::Schedule& schedule, ModelInputs& in, ScheduleModel& model) {
  const int n = static_cast<int>(in.analysis.funcs.size());
  model.funcs.resize(n);
  in.sched.assign(n, nullptr);
  in.inlined.assign(n, false);
  for (int f = 0; f < n; ++f) {
    const scheduler::FuncAnalysis& fa = in.analysis.funcs[f];
    in.sched[f] = schedule.find(fa.name);
    ComputeLocation::Kind kind = in.sched[f] ? in.sched[f]->compute.kind : ComputeLocation::Kind::kInline;
    if (fa.is_output || fa.has_updates()) {
      if (kind == ComputeLocation::Kind::kInline) kind = ComputeLocation::Kind::kRoot;
    }
    model.funcs[f].kind = kind;
    in.inlined[f] = kind == ComputeLocation::Kind::kInline;
  }
}

// The host stage and loop level of compute_at Func `f` (already modelled: the walk runs from
// the outputs back), its realizations and region there; a Func whose host loop is not found
// is modelled at root. Returns the parallel tasks outside each realization.
int64_t place_at_host(const ModelInputs& in, int f, FuncModel& fm, ScheduleModel& model) {
  const ComputeLocation& at = in.sched[f]->compute;
  const int host_func = in.analysis.index_of(at.consumer);
  int host = -1;
  for (size_t i = 0; i < model.stages.size(); ++i) {
    const StageModel& s = model.stages[i];
    if (s.func == host_func && (host < 0 || s.stage <= at.consumer_stage)) host = static_cast<int>(i);
  }
  const int compute_level = host < 0 ? -1 : position(model.stages[host].loops, at.loop);
  // A sliding window computes, over one iteration of its store loop, what a realization
  // there would: each point once, in rows. Modelled so, with the rows kept live (those
  // one iteration of the compute loop reads) as its window.
  const int store_level = at.sliding() && host >= 0 ? position(model.stages[host].loops, at.store_loop) : -1;
  const int p = store_level > compute_level ? store_level : compute_level;
  if (p < 0) {
    ++model.unknown_loops;
    fm.kind = ComputeLocation::Kind::kRoot;
    return 1;
  }
  const StageModel& hs = model.stages[host];
  fm.host_stage = host;
  fm.host_level = p;
  fm.realizations = hs.realizations * hs.executions(p);
  bool host_reads = false;
  for (const AccessGroupModel& g : hs.groups) {
    if (g.buffer != f || g.levels[p]->box.extent.size() != fm.region.size()) continue;
    for (size_t a = 0; a < fm.region.size(); ++a) fm.region[a] = std::min(fm.region[a], g.levels[p]->box.extent[a]);
    host_reads = true;
  }
  if (!host_reads) cut_to_readers(model, host, f, fm.region);
  if (p != compute_level) fm.window_elements = window_elements(hs, f, compute_level, p, fm.region);
  // Inside (or at) the host's parallel loop, every task computes its own part.
  bool inside_parallel = false;
  for (int q = p; q < hs.depth(); ++q) inside_parallel |= hs.loops[q].parallel;
  return hs.outer_tasks * (inside_parallel ? hs.tasks : 1);
}

// The loops' counts of stage `s` of Func `f`: points, iterations, parallel tasks and the
// vector width (a pure_vector intermediate's vectors are as wide as its pure vector; a
// vectorized reduction piece multiplies the lanes).
void count_stage_loops(const scheduler::StageSchedule* ss, StageModel& sm, ScheduleModel& model) {
  for (int64_t e : sm.dim_extent) sm.points *= e;
  for (const LoopModel& l : sm.loops) {
    sm.iterations *= l.extent;
    if (l.parallel) sm.tasks *= l.extent;
    if (l.vectorized) sm.vector_width = l.extent;
  }
  if (sm.vector_width > 1 && ss && ss->rfactor && ss->rfactor->pure_vector) {
    sm.vector_width = ss->rfactor->pure_vector;
  }
  if (ss && !ss->vector_reduce.empty()) add_vector_reduce(*ss, sm, model);
}

// The model of stage `s` of Func `f`: its loops (a compute_at Func's pure loops cover one
// realization's region; reduction loops run in full), accesses and footprints, and the
// lines it shares with its host.
StageModel build_stage_model(ModelInputs& in, int f, size_t s, const FuncModel& fm, int64_t outer_tasks,
                             ScheduleModel& model) {
  const scheduler::FuncAnalysis& fa = in.analysis.funcs[f];
  const scheduler::StageAnalysis& sa = fa.stages[s];
  const StageFacts& st = in.facts.stages[f][s];
  StageModel sm;
  sm.func = f;
  sm.stage = static_cast<int>(s);
  sm.id = st.id;
  sm.realizations = fm.realizations;
  sm.outer_tasks = outer_tasks;
  sm.dim_extent = st.extent;
  if (fm.kind == ComputeLocation::Kind::kAt) {
    for (size_t l = 0; l < sa.loops.size(); ++l) {
      if (sa.loops[l].is_reduction) continue;
      for (size_t a = 0; a < fa.args.size() && a < fm.region.size(); ++a) {
        if (fa.args[a] == sa.loops[l].name) sm.dim_extent[st.loop_dim[l]] = std::min(sm.dim_extent[st.loop_dim[l]], fm.region[a]);
      }
    }
  }
  const scheduler::StageSchedule* ss = find_stage(in.sched[f], sm.stage);
  build_loops(sa, st, ss, sm, model);
  count_stage_loops(ss, sm, model);
  collect_accesses(in.facts, in.inlined, in.cache, sm);
  add_footprints(in.cache, sm);
  reuse_producer_buffers(in.analysis, in.sched, sm);
  if (fm.host_stage >= 0) {
    sm.host_stage = fm.host_stage;
    sm.host_level = fm.host_level;
    add_host_lines(fa, sa, st, model.stages[fm.host_stage], in.cache, sm);
  }
  return sm;
}

// Func `f` and its stages into the model: nothing for an inlined Func, else its region
// (cut to its host's where computed at one) and each stage.
void add_func(ModelInputs& in, int f, ScheduleModel& model) {
  FuncModel& fm = model.funcs[f];
  if (in.inlined[f]) {
    fm.realizations = 0;
    return;
  }
  fm.region = in.facts.buffers[f].extent;
  if (const scheduler::StageSchedule* zero = find_stage(in.sched[f], 0)) fm.gpu_memory = zero->gpu.memory;
  int64_t outer_tasks = 1;
  if (fm.kind == ComputeLocation::Kind::kAt) outer_tasks = place_at_host(in, f, fm, model);
  for (size_t s = 0; s < in.analysis.funcs[f].stages.size(); ++s) {
    model.stages.push_back(build_stage_model(in, f, s, fm, outer_tasks, model));
  }
}

}  // namespace

int64_t StageModel::executions(int level) const {
  // Per dimension, the values the inner loops cover; the outer loops enumerate the tiles that
  // hold real iterations (guarded split tails do no work).
  std::vector<int64_t> span(dim_extent.size(), 1);
  for (int q = 0; q < level && q < depth(); ++q) span[loops[q].dim] *= loops[q].extent;
  int64_t n = 1;
  for (size_t d = 0; d < dim_extent.size(); ++d) {
    const int64_t s = std::max<int64_t>(1, std::min(span[d], dim_extent[d]));
    n *= (dim_extent[d] + s - 1) / s;
  }
  return n;
}

int64_t FuncModel::region_elements() const {
  int64_t n = 1;
  for (int64_t e : region) n *= e;
  return n;
}

ScheduleModel build_schedule_model(const scheduler::Analysis& analysis, const PipelineFacts& facts,
                                   FootprintCache& cache, const scheduler::Schedule& schedule) {
  ScheduleModel model;
  add_packs(analysis, facts, schedule, model);
  add_func_storage(analysis, schedule, model);
  ModelInputs in{analysis, facts, cache, {}, {}};
  resolve_compute_kinds(schedule, in, model);
  for (int f = static_cast<int>(analysis.funcs.size()) - 1; f >= 0; --f) add_func(in, f, model);
  set_address_steps(analysis, facts, schedule, model);
  add_pack_copies(analysis, facts, schedule, model);
  return model;
}

}  // namespace ktune::cost_model::internal
