// plan_reference decides in three steps: which Funcs to inline (consumers first, so that the
// points an inlined Func's consumers evaluate are known), then whether the outputs must be
// cut into tiles (halving the outermost dimension that may be cut until every buffer fits),
// then, if no tiling fits, whether large_buffers can run it whole.
#include "subgraphs/reference_plan.h"

#include <unistd.h>

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "subgraphs/internal/func_footprint.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

bool is_output(const BuiltPipeline& built, const std::string& name) {
  for (const Halide::Func& o : built.outputs) {
    if (o.name() == name) return true;
  }
  return false;
}

std::string written_name(const std::string& name) { return name.substr(0, name.find('$')); }

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GB", bytes / 1e9);
  return text;
}

// Points of `f` its consumers evaluate: each consumer stage's evaluations times its calls to `f`.
double points_read(const std::string& f, const std::map<std::string, std::vector<double>>& evaluations,
                   const std::map<std::string, std::vector<std::map<std::string, int>>>& calls) {
  double reads = 0;
  for (const auto& [consumer, per_stage] : evaluations) {
    const auto& consumer_calls = calls.at(consumer);
    for (size_t s = 0; s < per_stage.size() && s < consumer_calls.size(); ++s) {
      if (auto c = consumer_calls[s].find(f); c != consumer_calls[s].end()) reads += per_stage[s] * c->second;
    }
  }
  return reads;
}

[[noreturn]] void fail_unbounded(const HI::Function& f, int d) {
  throw UserError("Func \"" + written_name(f.name()) + "\" is read over an unbounded region in dimension " +
                  std::to_string(d) + " (" + f.args()[d] +
                  "): an index that depends on data is clamped on one side at most, and the Func has update "
                  "definitions, so it cannot be inlined and no schedule can compute it; clamp that index on both sides");
}

// The Funcs to inline: every pure Func read over an unbounded region, and every pure Func
// whose buffer would pass Halide's limit while its consumers evaluate fewer of its points.
std::set<std::string> planned_inlining(const BuiltPipeline& built, const std::map<std::string, HI::Box>& boxes,
                                       const std::map<std::string, Halide::Expr>& known, const ReferenceLimits& limits) {
  const std::vector<Halide::Func> funcs = pipeline_funcs(built);
  std::map<std::string, std::vector<std::map<std::string, int>>> calls;
  for (const Halide::Func& f : funcs) calls[f.name()] = calls_per_stage(f.function());
  std::map<std::string, std::vector<double>> evaluations;  // per Func (decided), per stage
  std::set<std::string> inlined;
  for (auto it = funcs.rbegin(); it != funcs.rend(); ++it) {
    const HI::Function f = it->function();
    const HI::Box& box = boxes.at(f.name());
    const bool pure = f.updates().empty() && !is_output(built, f.name());
    const double reads = points_read(f.name(), evaluations, calls);
    bool inline_it = false;
    if (const int d = unbounded_dimension(box); d >= 0) {
      if (!pure) fail_unbounded(f, d);
      inline_it = true;
    } else if (pure) {
      const double points = box_points(box);
      int widest = 1;
      for (const Halide::Type& t : f.output_types()) widest = std::max(widest, t.bytes());
      inline_it = points >= 0 && points * widest > limits.buffer_bytes && reads <= points;
    }
    if (inline_it) {
      inlined.insert(f.name());
      evaluations[f.name()] = {reads};
    } else {
      evaluations[f.name()] = stage_iterations(f, box, known);
    }
  }
  return inlined;
}

struct Footprint {
  double peak = 0;     // all buffers of one realization together
  double largest = 0;  // the largest one
};

Footprint footprint(const BuiltPipeline& built, const std::set<std::string>& inlined,
                    const std::vector<TensorInfo>& outputs, const std::map<std::string, Halide::Expr>& known) {
  const std::map<std::string, HI::Box> boxes = func_boxes(built, outputs, known);
  Footprint fp;
  for (const Halide::Func& f : pipeline_funcs(built)) {
    if (inlined.count(f.name()) || is_output(built, f.name())) continue;
    const HI::Box& box = boxes.at(f.name());
    if (unbounded_dimension(box) >= 0) continue;  // inlined, or planning failed already
    const double points = box_points(written_box(f.function(), box, known));
    if (points < 0) continue;  // not constant: nothing to say about it
    for (const Halide::Type& t : f.function().output_types()) {
      fp.peak += points * t.bytes();
      fp.largest = std::max(fp.largest, points * t.bytes());
    }
  }
  return fp;
}

bool fits(const Footprint& fp, const ReferenceLimits& limits) {
  return fp.largest <= limits.buffer_bytes && fp.peak <= limits.realization_bytes;
}

// The outputs cut to `tile` (Halide order) from their mins.
std::vector<TensorInfo> tile_outputs(const std::vector<TensorInfo>& outputs, const std::vector<int64_t>& tile) {
  std::vector<TensorInfo> result = outputs;
  for (TensorInfo& t : result) {
    const size_t rank = t.shape.size();
    for (size_t d = 0; d < tile.size() && d < rank; ++d) t.shape[rank - 1 - d] = std::min(t.shape[rank - 1 - d], tile[d]);
  }
  return result;
}

// Per output dimension (Halide order): whether the outputs may be computed a part at a time
// along it: every output has the same region along it, no output's update writes along it
// with anything but its own variable, and no output buffer is constrained along it.
std::vector<bool> tileable_dimensions(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs) {
  const size_t rank = outputs.empty() ? 0 : outputs[0].shape.size();
  std::vector<bool> tileable(rank, true);
  for (const TensorInfo& t : outputs) {
    if (t.shape.size() != rank) return std::vector<bool>(rank, false);
    for (size_t d = 0; d < rank; ++d) {
      const size_t axis = rank - 1 - d;
      tileable[d] = tileable[d] && t.shape[axis] == outputs[0].shape[axis] &&
                    t.mins_or_zero()[axis] == outputs[0].mins_or_zero()[axis];
    }
  }
  for (const Halide::Func& out : built.outputs) {
    const HI::Function f = out.function();
    for (size_t d = 0; d < rank && d < f.args().size(); ++d) {
      for (const HI::Definition& u : f.updates()) {
        const auto* v = u.args()[d].as<HI::Variable>();
        if (!v || v->name != f.args()[d]) tileable[d] = false;
      }
      for (const HI::Parameter& buffer : f.output_buffers()) {
        if (buffer.min_constraint(d).defined() || buffer.extent_constraint(d).defined()) tileable[d] = false;
      }
    }
  }
  return tileable;
}

// The largest tile (halving the outermost tileable dimension first) whose buffers fit; empty
// when the whole outputs fit, nullopt when no tile does.
std::optional<std::vector<int64_t>> fitting_tile(const BuiltPipeline& built, const std::set<std::string>& inlined,
                                                 const std::vector<TensorInfo>& outputs,
                                                 const std::map<std::string, Halide::Expr>& known,
                                                 const ReferenceLimits& limits) {
  if (fits(footprint(built, inlined, outputs, known), limits)) return std::vector<int64_t>{};
  const std::vector<bool> tileable = tileable_dimensions(built, outputs);
  std::vector<int64_t> tile(outputs[0].shape.rbegin(), outputs[0].shape.rend());
  while (true) {
    int d = static_cast<int>(tile.size()) - 1;
    while (d >= 0 && (!tileable[d] || tile[d] <= 1)) --d;
    if (d < 0) return std::nullopt;
    tile[d] = (tile[d] + 1) / 2;
    if (fits(footprint(built, inlined, tile_outputs(outputs, tile), known), limits)) return tile;
  }
}

double physical_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string ReferencePlan::describe() const {
  std::string text;
  std::set<std::string> names;  // as written, sorted
  for (const std::string& f : inlined) names.insert(written_name(f));
  if (!names.empty()) {
    text = "inlined";
    for (const std::string& f : names) text += " " + f;
  }
  if (!tile.empty()) {
    text += std::string(text.empty() ? "" : "; ") + "tiles ";
    for (size_t d = 0; d < tile.size(); ++d) text += (d ? "x" : "") + std::to_string(tile[d]);
  }
  if (large_buffers) text += std::string(text.empty() ? "" : "; ") + "large_buffers";
  return text.empty() ? "trivial" : text;
}

ReferencePlan plan_reference(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs,
                             const std::map<std::string, Halide::Expr>& known, const ReferenceLimits& limits) {
  ReferencePlan plan;
  plan.inlined = planned_inlining(built, func_boxes(built, outputs, known), known, limits);
  if (outputs.empty()) return plan;
  if (const auto tile = fitting_tile(built, plan.inlined, outputs, known, limits)) {
    plan.tile = *tile;
    plan.peak_bytes = footprint(built, plan.inlined, plan.tile.empty() ? outputs : tile_outputs(outputs, plan.tile), known).peak;
    return plan;
  }
  const Footprint whole = footprint(built, plan.inlined, outputs, known);
  if (whole.peak > physical_memory_bytes() / 2) {
    throw UserError("computing the reference needs " + gigabytes(whole.peak) + " of buffers at once (the largest " +
                    gigabytes(whole.largest) + "), more than half of this machine's " +
                    gigabytes(physical_memory_bytes()) + ", and computing the outputs a part at a time does not "
                    "make them smaller");
  }
  plan.large_buffers = true;
  plan.peak_bytes = whole.peak;
  return plan;
}

void apply_reference_schedule(const BuiltPipeline& built, const ReferencePlan& plan) {
  for (Halide::Func f : pipeline_funcs(built)) {
    if (!plan.inlined.count(f.name())) f.compute_root();
  }
}

Halide::Target reference_target(const ReferencePlan& plan, Halide::Target target) {
  return plan.large_buffers ? target.with_feature(Halide::Target::LargeBuffers) : target;
}

}  // namespace ktune::subgraphs
