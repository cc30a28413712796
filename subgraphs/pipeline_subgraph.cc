// init() reads a freshly built pipeline in three steps: outputs (their regions give the
// bounds every input is read at), inputs (from those bounds, the pipeline's constraints
// and the estimates), scalars (given values, else estimates).
#include "subgraphs/pipeline_subgraph.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/hash.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/output_bounds.h"
#include "subgraphs/reference_plan.h"
#include "subgraphs/internal/arithmetic_count.h"
#include "targets/host_target.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

std::optional<int64_t> const_value(const Halide::Expr& e) {
  if (!e.defined()) return std::nullopt;
  const Halide::Expr s = HI::simplify(e);
  if (const int64_t* v = HI::as_const_int(s)) return *v;
  if (const uint64_t* u = HI::as_const_uint(s)) return static_cast<int64_t>(*u);
  return std::nullopt;
}

std::optional<double> const_number(const Halide::Expr& e) {
  if (!e.defined()) return std::nullopt;
  const Halide::Expr s = HI::simplify(e);
  if (const double* f = HI::as_const_float(s)) return *f;
  if (auto i = const_value(s)) return static_cast<double>(*i);
  return std::nullopt;
}

std::string type_name(const Halide::Type& t) { return Halide::type_to_c_type(t, false); }

std::string supported_types() {
  std::string list;
  for (DType d : all_dtypes()) list += (list.empty() ? "" : ", ") + to_string(d);
  return list;
}

// Parses a scalar's value as text; nullopt when it is not a number (or a bool for bools).
std::optional<double> parse_scalar(DType dtype, const std::string& text) {
  if (dtype == DType::kBool) {
    if (text == "true" || text == "1") return 1.0;
    if (text == "false" || text == "0") return 0.0;
    return std::nullopt;
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || std::isnan(v) || std::isinf(v)) return std::nullopt;
  if (!is_float(dtype) && v != std::floor(v)) return std::nullopt;
  return v;
}

}  // namespace

PipelineSubgraph::PipelineSubgraph(std::string name, PipelineFactory factory, std::string where,
                                   std::string what, const ScalarValues& scalar_values,
                                   const InputRanges& input_ranges) {
  init(std::move(name), std::move(factory), std::move(where), std::move(what), scalar_values, input_ranges);
}

void PipelineSubgraph::fail_build(const std::string& message) const {
  throw UserError(format_user_error(where_, "", what_ + message));
}

void PipelineSubgraph::init(std::string name, PipelineFactory factory, std::string where, std::string what,
                            const ScalarValues& scalar_values, const InputRanges& input_ranges) {
  name_ = std::move(name);
  factory_ = std::move(factory);
  where_ = std::move(where);
  what_ = what.empty() ? "" : std::move(what) + ": ";
  const BuiltPipeline built = built_from_pipeline(factory_());
  read_outputs(built);
  read_scalars(built, scalar_values);
  read_inputs(built);
  set_input_ranges(input_ranges);
  finalize();
  flops_ = count_pipeline_arithmetic(built, stages_);
}

void PipelineSubgraph::read_outputs(const BuiltPipeline& built) {
  const bool through_float = computes_in_float(built);
  for (const Halide::Func& f : built.outputs) {
    const HI::Function fn = f.function();
    // Halide appends "$N" to a name created twice in one process; the name is the user's.
    const std::string base = f.name().substr(0, f.name().find('$'));
    TensorInfo info{base, DType::kF32, {}, {}};
    for (int d = static_cast<int>(fn.args().size()) - 1; d >= 0; --d) {
      std::optional<int64_t> min, extent;
      for (const HI::Bound& b : fn.schedule().estimates()) {
        if (b.var != fn.args()[d]) continue;
        min = const_value(b.min);
        extent = const_value(b.extent);
      }
      // A constraint on the output buffer (set_bounds) is what every call must satisfy.
      const HI::Parameter& buffer = fn.output_buffers()[0];
      if (auto c = const_value(buffer.min_constraint(d))) min = c;
      if (auto c = const_value(buffer.extent_constraint(d))) extent = c;
      if (!extent) {
        fail_build("output \"" + base + "\" has no estimate for dimension " + std::to_string(d) +
                   "; call output.set_estimates(...) so ktune knows its shape");
      }
      if (*extent <= 0) {
        fail_build("output \"" + base + "\" has extent " + std::to_string(*extent) + " in dimension " +
                   std::to_string(d) + " (from its estimate or bounds; a --param may have set it): extents must be at least 1");
      }
      info.shape.push_back(*extent);
      info.mins.push_back(min.value_or(0));
    }
    for (size_t k = 0; k < fn.output_types().size(); ++k) {
      const std::optional<DType> dtype = dtype_of(fn.output_types()[k]);
      if (!dtype) {
        fail_build("output \"" + base + "\" has type " + type_name(fn.output_types()[k]) +
                   "; ktune supports buffers of " + supported_types());
      }
      TensorInfo element = info;
      element.dtype = *dtype;
      element.rounded_from_float = through_float && !is_float(*dtype);
      if (fn.output_types().size() > 1) element.name = base + "_" + std::to_string(k);
      outputs_.push_back(element);
    }
  }
  // A bound the pipeline puts on an output Func is what every call must satisfy, too.
  outputs_ = bounded_outputs(built, outputs_);
}

void PipelineSubgraph::read_inputs(const BuiltPipeline& built) {
  const std::map<std::string, HI::Box> boxes = func_boxes(built, outputs_, known_values(built, {}, outputs_, scalars_));
  for (const HI::Parameter& p : built.inputs) {
    const std::optional<DType> dtype = dtype_of(p.type());
    if (!dtype) {
      fail_build("input \"" + p.name() + "\" has type " + type_name(p.type()) + "; ktune supports buffers of " +
                 supported_types());
    }
    TensorInfo info{p.name(), *dtype, {}, {}};
    const auto box = boxes.find(p.name());
    for (int d = p.dimensions() - 1; d >= 0; --d) {
      std::optional<int64_t> min, max;
      if (box != boxes.end() && d < static_cast<int>(box->second.size())) {
        min = const_value(box->second[d].min);
        max = const_value(box->second[d].max);
      }
      // Where the reads are unbounded, the estimate says how large the input is.
      const std::optional<int64_t> est_min = const_value(p.min_constraint_estimate(d));
      const std::optional<int64_t> est_extent = const_value(p.extent_constraint_estimate(d));
      if (!min || !max) {
        if (est_extent && *est_extent <= 0) {
          fail_build("input \"" + p.name() + "\" has extent " + std::to_string(*est_extent) + " in dimension " +
                     std::to_string(d) + " (from its estimate; a --param may have set it): extents must be at least 1");
        }
        if (!est_extent) {
          fail_build("input \"" + p.name() + "\" has no estimate for dimension " + std::to_string(d) +
                     " and the outputs do not bound where it is read; call input.set_estimates(...) so "
                     "ktune knows its shape");
        }
        min = est_min.value_or(0);
        max = *min + *est_extent - 1;
      }
      // Where the estimate is larger, it wins too: the Generator's own program (RunGen
      // --estimate_all) allocates the input so, and a schedule that computes whole tiles past
      // what the outputs need reads there.
      if (est_extent && *est_extent > 0) {
        min = std::min(*min, est_min.value_or(0));
        max = std::max(*max, est_min.value_or(0) + *est_extent - 1);
      }
      // The pipeline's own constraints (set_bounds, set_min, set_extent) win.
      if (auto c = const_value(p.min_constraint(d))) min = c;
      if (auto c = const_value(p.extent_constraint(d))) max = *min + *c - 1;
      if (*max < *min) fail_build("input \"" + p.name() + "\" is read over an empty region in dimension " + std::to_string(d));
      info.shape.push_back(*max - *min + 1);
      info.mins.push_back(*min);
    }
    inputs_.push_back(info);
  }
}

void PipelineSubgraph::set_input_ranges(const InputRanges& given) {
  const SeededRanges seeded = seeded_ranges(inputs_, given);
  if (!seeded.error.empty()) fail_build(seeded.error);
  for (const InputRange& r : seeded.ranges) input_ranges_.emplace_back(r.lo, r.hi);
  range_key_text_ = range_key_text(inputs_, seeded.ranges);
  range_display_text_ = range_display_text(inputs_, seeded.ranges);
}

void PipelineSubgraph::read_scalars(const BuiltPipeline& built, const ScalarValues& values) {
  std::string known;
  for (const HI::Parameter& p : built.scalars) known += (known.empty() ? "" : ", ") + p.name();
  for (const auto& [name, text] : values) {
    bool found = false;
    for (const HI::Parameter& p : built.scalars) found |= p.name() == name;
    if (!found) {
      fail_build("--input " + name + "=" + text + ": no scalar input named \"" + name + "\" (" +
                 (known.empty() ? "this pipeline has none" : "its scalar inputs: " + known) + ")");
    }
  }
  for (const HI::Parameter& p : built.scalars) {
    const std::optional<DType> dtype = dtype_of(p.type());
    if (!dtype) fail_build("scalar input \"" + p.name() + "\" has type " + type_name(p.type()) + ", which ktune cannot set");
    ScalarInfo s{p.name(), *dtype, 0};
    if (auto given = values.find(p.name()); given != values.end()) {
      const std::optional<double> v = parse_scalar(*dtype, given->second);
      if (!v) {
        fail_build("--input " + p.name() + "=" + given->second + ": expected a " + to_string(*dtype) + " value");
      }
      s.value = *v;
    } else if (auto estimate = const_number(p.estimate())) {
      s.value = *estimate;
    } else {
      fail_build("scalar input \"" + p.name() + "\" has no value: pass --input " + p.name() +
                 "=VALUE, or call " + p.name() + ".set_estimate(...) in the Generator");
    }
    const std::optional<double> lo = const_number(p.min_value()), hi = const_number(p.max_value());
    if ((lo && s.value < *lo) || (hi && s.value > *hi)) {
      fail_build("scalar input \"" + p.name() + "\" = " + std::to_string(s.value) + " is outside its range [" +
                 (lo ? std::to_string(*lo) : "-inf") + ", " + (hi ? std::to_string(*hi) : "inf") + "]");
    }
    s.value = round_to(*dtype, s.value);
    scalars_.push_back(s);
  }
}

BuiltPipeline PipelineSubgraph::build() const {
  BuiltPipeline built = built_from_pipeline(factory_());
  bind_scalars(built, scalars_);
  return built;
}

std::vector<Tensor> PipelineSubgraph::reference(const std::vector<Tensor>& inputs) const {
  std::string identity;
  for (const Tensor& t : inputs) {
    identity += stable_hash_hex(std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
  }
  std::lock_guard<std::mutex> lock(reference_mutex_);
  if (identity == reference_inputs_hash_) return reference_outputs_;
  const BuiltPipeline built = build();
  const ReferencePlan plan = plan_reference(built, outputs_, known_values(built, inputs_, outputs_, scalars_));
  apply_reference_schedule(built, plan);
  const Halide::Target target = reference_target(plan, Halide::Target(targets::jit_halide_target()));
  reference_outputs_ = run_reference_plan(built, plan, inputs, inputs_, outputs_, target);
  reference_inputs_hash_ = identity;
  return reference_outputs_;
}

}  // namespace ktune::subgraphs
