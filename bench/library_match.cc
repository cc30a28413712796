// match_library_plan: walks the spec's ops in order, recognising a head op (matmul, conv,
// softmax, layernorm, reduce_sum, or an elementwise op) followed by an optional bias_add and
// a chain of elementwise ops, each consuming the previous op's output only, and an optional
// final requantize (quantized matmul and conv).
#include "bench/library_match.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "subgraphs/tensor.h"

namespace ktune::bench {
namespace {

const std::vector<std::string>& unary_ops() {
  static const std::vector<std::string> ops = {"relu", "gelu", "sigmoid", "tanh", "exp", "neg", "scale"};
  return ops;
}
const std::vector<std::string>& binary_ops() {
  static const std::vector<std::string> ops = {"add", "sub", "mul", "div", "max", "min"};
  return ops;
}
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

int64_t int_attr(const subgraphs::OpSpec& op, const char* key, int64_t fallback) {
  auto it = op.node.find(key);
  return it != op.node.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}
bool bool_attr(const subgraphs::OpSpec& op, const char* key) {
  auto it = op.node.find(key);
  return it != op.node.end() && it->is_boolean() && it->get<bool>();
}
std::vector<int64_t> pair_attr(const subgraphs::OpSpec& op, const char* key, int64_t fallback) {
  auto it = op.node.find(key);
  if (it == op.node.end()) return {fallback, fallback};
  if (it->is_number_integer()) return {it->get<int64_t>(), it->get<int64_t>()};
  if (it->is_array() && it->size() == 2) return {(*it)[0].get<int64_t>(), (*it)[1].get<int64_t>()};
  return {fallback, fallback};
}
// The axis attribute normalised to [0, rank), or -1 when absent and `fallback` is -1.
int64_t axis_attr(const subgraphs::OpSpec& op, const char* key, int64_t fallback, size_t rank) {
  int64_t a = int_attr(op, key, fallback);
  if (a < 0) a += static_cast<int64_t>(rank);
  return a;
}

// The factor of a "scale" op; 1 when it gives none.
double scale_factor(const subgraphs::OpSpec& op) {
  auto f = op.node.find("factor");
  return f != op.node.end() ? f->get<double>() : 1.0;
}

// The spec's inputs looked up by name.
class SpecInputs {
 public:
  explicit SpecInputs(const subgraphs::Spec& spec) : spec_(spec) {
    for (size_t i = 0; i < spec.inputs.size(); ++i) index_[spec.inputs[i].info.name] = static_cast<int>(i);
  }
  // The index of the input called `name`, or -1 when `name` is not an input (an op's output).
  int index_of(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
  }
  subgraphs::Shape shape(int i) const { return spec_.inputs[i].info.shape; }

 private:
  const subgraphs::Spec& spec_;
  std::map<std::string, int> index_;  // input name -> index in spec_.inputs
};

// A match in progress: the plan so far and the running value the next op has to consume.
struct Match {
  LibraryPlan plan;
  std::vector<std::string> names;  // the ops matched so far, for the plan's summary
  std::string value;               // the running value: the output of the last op matched
  subgraphs::Shape value_shape;    // its shape
  size_t next = 1;                 // index in spec.ops of the first op not matched yet
};

// Why `spec` maps onto no library call whatever its ops are (outputs, no ops); empty when it may.
std::string spec_rejection(const subgraphs::Spec& spec) {
  if (spec.outputs.size() != 1) return "several outputs";
  if (spec.ops.empty()) return "no ops";
  return {};
}

// Records the head op's inputs as the plan's operands; all must be spec inputs.
std::string match_head_operands(const subgraphs::OpSpec& head, const SpecInputs& inputs, LibraryPlan& plan) {
  for (const std::string& in : head.inputs) {
    if (inputs.index_of(in) < 0) return head.op + " reads \"" + in + "\", which is not a spec input";
    plan.operands.push_back(inputs.index_of(in));
  }
  return {};
}

// A matrix product, batched when its operands have rank 3.
void match_matmul(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  LibraryPlan& plan = match.plan;
  plan.kind = PlanKind::kMatmul;
  plan.transpose_a = bool_attr(head, "transpose_a");
  plan.transpose_b = bool_attr(head, "transpose_b");
  const subgraphs::Shape a = inputs.shape(plan.operands[0]), b = inputs.shape(plan.operands[1]);
  const size_t r = a.size();
  plan.batch = r == 3 ? a[0] : 1;
  plan.m = plan.transpose_a ? a[r - 1] : a[r - 2];
  plan.k = plan.transpose_a ? a[r - 2] : a[r - 1];
  plan.n = plan.transpose_b ? b[r - 2] : b[r - 1];
  match.value_shape = r == 3 ? subgraphs::Shape{plan.batch, plan.m, plan.n} : subgraphs::Shape{plan.m, plan.n};
}

// NCHW extents of an NHWC shape, and OIHW extents of HWIO weights.
subgraphs::Shape nchw_of_nhwc(const subgraphs::Shape& s) { return {s[0], s[3], s[1], s[2]}; }
subgraphs::Shape oihw_of_hwio(const subgraphs::Shape& s) { return {s[3], s[2], s[0], s[1]}; }

// A 2-D convolution, its output size worked out from stride, padding and dilation.
std::string match_conv(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  auto layout = head.node.find("layout");
  LibraryPlan& plan = match.plan;
  plan.kind = PlanKind::kConv;
  plan.conv_nhwc = layout != head.node.end() && layout->get<std::string>() == "NHWC";
  plan.conv_input = inputs.shape(plan.operands[0]);
  plan.conv_weights = inputs.shape(plan.operands[1]);
  if (plan.conv_nhwc) {
    plan.conv_input = nchw_of_nhwc(plan.conv_input);
    plan.conv_weights = oihw_of_hwio(plan.conv_weights);
  }
  plan.groups = int_attr(head, "groups", 1);
  plan.stride = pair_attr(head, "stride", 1);
  plan.padding = pair_attr(head, "padding", 0);
  plan.dilation = pair_attr(head, "dilation", 1);
  const auto& x = plan.conv_input;
  const auto& w = plan.conv_weights;
  const int64_t oh = (x[2] + 2 * plan.padding[0] - plan.dilation[0] * (w[2] - 1) - 1) / plan.stride[0] + 1;
  const int64_t ow = (x[3] + 2 * plan.padding[1] - plan.dilation[1] * (w[3] - 1) - 1) / plan.stride[1] + 1;
  plan.conv_output = {x[0], w[0], oh, ow};
  match.value_shape = plan.conv_nhwc ? subgraphs::Shape{x[0], oh, ow, w[0]} : plan.conv_output;
  return {};
}

// Softmax or layer normalization along the last axis, seen as a [rows, cols] matrix.
std::string match_softmax_or_layernorm(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  const subgraphs::Shape x = inputs.shape(match.plan.operands[0]);
  if (axis_attr(head, "axis", -1, x.size()) != static_cast<int64_t>(x.size()) - 1) {
    return head.op + " along an axis other than the last";
  }
  LibraryPlan& plan = match.plan;
  plan.kind = head.op == "softmax" ? PlanKind::kSoftmax : PlanKind::kLayerNorm;
  plan.cols = x.back();
  plan.rows = subgraphs::element_count(x) / plan.cols;
  if (auto eps = head.node.find("eps"); eps != head.node.end() && eps->is_number()) plan.eps = eps->get<double>();
  match.value_shape = x;
  return {};
}

// A sum over one axis of a matrix, not keeping the summed axis.
std::string match_reduce_sum(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  const subgraphs::Shape x = inputs.shape(match.plan.operands[0]);
  auto axes = head.node.find("axes");
  if (x.size() != 2 || axes == head.node.end() || !axes->is_array() || axes->size() != 1 ||
      bool_attr(head, "keepdims")) {
    return "reduce_sum other than over one axis of a matrix";
  }
  int64_t axis = (*axes)[0].get<int64_t>();
  if (axis < 0) axis += 2;
  LibraryPlan& plan = match.plan;
  plan.kind = PlanKind::kReduceSum;
  plan.reduce_axis = static_cast<int>(axis);
  plan.rows = x[0];
  plan.cols = x[1];
  match.value_shape = {axis == 0 ? x[1] : x[0]};
  return {};
}

// An elementwise op on equally shaped inputs, the first step of an elementwise chain.
std::string match_eltwise_head(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  LibraryPlan& plan = match.plan;
  plan.kind = PlanKind::kEltwise;
  const subgraphs::Shape x = inputs.shape(plan.operands[0]);
  if (plan.operands.size() == 2 && inputs.shape(plan.operands[1]) != x) return head.op + " with broadcasting";
  plan.elements = subgraphs::element_count(x);
  EltwiseStep first;
  first.op = head.op;
  if (head.op == "scale") first.factor = scale_factor(head);
  if (plan.operands.size() == 2) first.operand = plan.operands[1];
  // The chain starts from the first input; a binary head's second input is its step's operand.
  plan.operands.resize(1);
  plan.steps.push_back(first);
  match.value_shape = x;
  return {};
}

// Matches the head op (spec.ops[0]) onto the library routine that computes it.
std::string match_head(const subgraphs::OpSpec& head, const SpecInputs& inputs, Match& match) {
  if (std::string why = match_head_operands(head, inputs, match.plan); !why.empty()) return why;
  if (head.op == "matmul" || head.op == "batch_matmul") {
    match_matmul(head, inputs, match);
    return {};
  }
  if (head.op == "conv2d") return match_conv(head, inputs, match);
  if (head.op == "softmax" || head.op == "layernorm") return match_softmax_or_layernorm(head, inputs, match);
  if (head.op == "reduce_sum") return match_reduce_sum(head, inputs, match);
  if (contains(unary_ops(), head.op) || contains(binary_ops(), head.op)) return match_eltwise_head(head, inputs, match);
  return "no library routine for " + head.op;
}

// The axis of the running value that a bias or per-channel scales run along: a conv's
// channels, or a matrix product's last axis.
int64_t channel_axis(const Match& match) {
  const bool channels_first = match.plan.kind == PlanKind::kConv && !match.plan.conv_nhwc;
  return channels_first ? 1 : static_cast<int64_t>(match.value_shape.size()) - 1;
}

// An optional bias over the channel (conv) or the last axis (matmul).
std::string match_bias(const subgraphs::Spec& spec, const SpecInputs& inputs, Match& match) {
  if (match.next >= spec.ops.size() || spec.ops[match.next].op != "bias_add" ||
      (match.plan.kind != PlanKind::kMatmul && match.plan.kind != PlanKind::kConv)) {
    return {};
  }
  const subgraphs::OpSpec& op = spec.ops[match.next];
  const int b = op.inputs.size() == 2 && op.inputs[0] == match.value ? inputs.index_of(op.inputs[1]) : -1;
  const int64_t want_axis = channel_axis(match);
  if (b < 0 || axis_attr(op, "axis", -1, match.value_shape.size()) != want_axis) {
    return "bias_add that is not a per-channel bias";
  }
  match.plan.bias = b;
  match.value = op.output;
  match.names.push_back("bias_add");
  ++match.next;
  return {};
}

// The step `op` applies to the running value, or nullopt when `op` is no elementwise op on that value.
std::optional<EltwiseStep> step_on_value(const subgraphs::OpSpec& op, const SpecInputs& inputs, const Match& match) {
  EltwiseStep step;
  step.op = op.op;
  if (contains(unary_ops(), op.op) && op.inputs.size() == 1 && op.inputs[0] == match.value) {
    if (op.op == "scale") step.factor = scale_factor(op);
  } else if (contains(binary_ops(), op.op) && op.inputs.size() == 2 && op.inputs[0] == match.value &&
             inputs.index_of(op.inputs[1]) >= 0 && inputs.shape(inputs.index_of(op.inputs[1])) == match.value_shape) {
    step.operand = inputs.index_of(op.inputs[1]);
  } else {
    return std::nullopt;
  }
  return step;
}

// A requantize of the running value (the spec's last op), with one scale or per-channel
// scales (a spec input along the channel axis).
std::string match_requantize(const subgraphs::OpSpec& op, const SpecInputs& inputs, Match& match) {
  LibraryPlan& plan = match.plan;
  if (plan.kind != PlanKind::kMatmul && plan.kind != PlanKind::kConv) return "requantize after " + plan.summary;
  if (op.inputs[0] != match.value) return "requantize of another value than the previous result";
  if (op.inputs.size() == 2) {
    plan.requant_scales = inputs.index_of(op.inputs[1]);
    if (plan.requant_scales < 0) return "requantize with computed scales";
    if (axis_attr(op, "axis", -1, match.value_shape.size()) != channel_axis(match)) {
      return "requantize with scales along another axis than the channels";
    }
  } else if (auto s = op.node.find("scale"); s != op.node.end() && s->is_number()) {
    plan.requant_scale = s->get<double>();
  }
  plan.requant_zero_point = int_attr(op, "zero_point", 0);
  plan.requantize = true;
  match.value = op.output;
  match.names.push_back("requantize");
  return {};
}

// The rest of the ops as elementwise steps, each on the running value, and a final requantize.
std::string match_steps(const subgraphs::Spec& spec, const SpecInputs& inputs, Match& match) {
  for (; match.next < spec.ops.size(); ++match.next) {
    const subgraphs::OpSpec& op = spec.ops[match.next];
    if (op.op == "requantize" && match.next + 1 == spec.ops.size()) return match_requantize(op, inputs, match);
    std::optional<EltwiseStep> step = step_on_value(op, inputs, match);
    if (!step) return op.op + " (" + op.path + ") is not an elementwise step on the previous result";
    match.plan.steps.push_back(*step);
    match.value = op.output;
    match.names.push_back(op.op);
  }
  return {};
}

// Whether the library routine for `kind` can be followed by elementwise steps.
bool takes_steps(PlanKind kind) {
  return kind == PlanKind::kMatmul || kind == PlanKind::kConv || kind == PlanKind::kEltwise;
}

// "matmul + bias_add + gelu": the ops matched, in order.
std::string summary_of(const std::vector<std::string>& names) {
  std::string summary;
  for (const std::string& n : names) summary += (summary.empty() ? "" : " + ") + n;
  return summary;
}

}  // namespace

float apply_step(const EltwiseStep& step, float v, float operand) {
  const std::string& op = step.op;
  if (op == "relu") return v > 0 ? v : 0;
  if (op == "gelu") {
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + std::tanh(u));
  }
  if (op == "sigmoid") return 1.0f / (1.0f + std::exp(-v));
  if (op == "tanh") return std::tanh(v);
  if (op == "exp") return std::exp(v);
  if (op == "neg") return -v;
  if (op == "scale") return static_cast<float>(v * step.factor);
  if (op == "add") return v + operand;
  if (op == "sub") return v - operand;
  if (op == "mul") return v * operand;
  if (op == "div") return v / operand;
  if (op == "max") return std::max(v, operand);
  if (op == "min") return std::min(v, operand);
  return v;
}

bool LibraryPlan::all_f32() const {
  return output_dtype == subgraphs::DType::kF32 &&
         std::all_of(input_dtypes.begin(), input_dtypes.end(), [](subgraphs::DType d) { return d == subgraphs::DType::kF32; });
}

std::string LibraryPlan::type_summary() const {
  std::string s;
  for (int i : operands) s += (s.empty() ? "" : " x ") + subgraphs::to_string(input_dtypes.at(i));
  return s + " -> " + subgraphs::to_string(output_dtype);
}

PlanMatch match_library_plan(const subgraphs::Spec& spec, subgraphs::DType output_dtype) {
  PlanMatch out;
  out.reason = spec_rejection(spec);
  if (!out.reason.empty()) return out;
  const SpecInputs inputs(spec);
  const subgraphs::OpSpec& head = spec.ops[0];
  Match match;
  for (const subgraphs::InputSpec& in : spec.inputs) match.plan.input_dtypes.push_back(in.info.dtype);
  match.plan.output_dtype = output_dtype;
  match.names = {head.op};
  match.value = head.output;
  out.reason = match_head(head, inputs, match);
  if (!out.reason.empty()) return out;
  out.reason = match_bias(spec, inputs, match);
  if (!out.reason.empty()) return out;
  out.reason = match_steps(spec, inputs, match);
  if (!out.reason.empty()) return out;
  if (!takes_steps(match.plan.kind) && !match.plan.steps.empty()) {
    out.reason = head.op + " followed by elementwise ops";
    return out;
  }
  match.plan.summary = summary_of(match.names);
  out.plan = match.plan;
  return out;
}

}  // namespace ktune::bench
