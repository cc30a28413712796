// match_library_plan: walks the spec's ops in order, recognising a head op (matmul, conv,
// softmax, layernorm, reduce_sum, or an elementwise op) followed by an optional bias_add and
// a chain of elementwise ops, each consuming the previous op's output only.
#include "tools/bench/library_match.h"

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

PlanMatch match_library_plan(const subgraphs::Spec& spec) {
  PlanMatch out;
  if (spec.outputs.size() != 1) {
    out.reason = "several outputs";
    return out;
  }
  if (spec.ops.empty()) {
    out.reason = "no ops";
    return out;
  }
  for (const subgraphs::InputSpec& in : spec.inputs) {
    if (in.info.dtype != subgraphs::DType::kF32) {
      out.reason = "input \"" + in.info.name + "\" is " + subgraphs::to_string(in.info.dtype) + "; the baselines take f32";
      return out;
    }
  }
  std::map<std::string, int> input_index;
  for (size_t i = 0; i < spec.inputs.size(); ++i) input_index[spec.inputs[i].info.name] = static_cast<int>(i);
  auto input_of = [&](const std::string& name) {
    auto it = input_index.find(name);
    return it == input_index.end() ? -1 : it->second;
  };
  auto shape_of = [&](int i) { return spec.inputs[i].info.shape; };

  LibraryPlan plan;
  const subgraphs::OpSpec& head = spec.ops[0];
  std::vector<std::string> names = {head.op};
  subgraphs::Shape value_shape;
  size_t next = 1;
  for (const std::string& in : head.inputs) {
    if (input_of(in) < 0) {
      out.reason = head.op + " reads \"" + in + "\", which is not a spec input";
      return out;
    }
    plan.operands.push_back(input_of(in));
  }

  if (head.op == "matmul" || head.op == "batch_matmul") {
    plan.kind = PlanKind::kMatmul;
    plan.transpose_a = bool_attr(head, "transpose_a");
    plan.transpose_b = bool_attr(head, "transpose_b");
    const subgraphs::Shape a = shape_of(plan.operands[0]), b = shape_of(plan.operands[1]);
    const size_t r = a.size();
    plan.batch = r == 3 ? a[0] : 1;
    plan.m = plan.transpose_a ? a[r - 1] : a[r - 2];
    plan.k = plan.transpose_a ? a[r - 2] : a[r - 1];
    plan.n = plan.transpose_b ? b[r - 2] : b[r - 1];
    value_shape = r == 3 ? subgraphs::Shape{plan.batch, plan.m, plan.n} : subgraphs::Shape{plan.m, plan.n};
  } else if (head.op == "conv2d") {
    auto layout = head.node.find("layout");
    if (layout != head.node.end() && layout->get<std::string>() != "NCHW") {
      out.reason = "conv2d in NHWC layout";
      return out;
    }
    plan.kind = PlanKind::kConv;
    plan.conv_input = shape_of(plan.operands[0]);
    plan.conv_weights = shape_of(plan.operands[1]);
    plan.groups = int_attr(head, "groups", 1);
    plan.stride = pair_attr(head, "stride", 1);
    plan.padding = pair_attr(head, "padding", 0);
    plan.dilation = pair_attr(head, "dilation", 1);
    const auto& x = plan.conv_input;
    const auto& w = plan.conv_weights;
    const int64_t oh = (x[2] + 2 * plan.padding[0] - plan.dilation[0] * (w[2] - 1) - 1) / plan.stride[0] + 1;
    const int64_t ow = (x[3] + 2 * plan.padding[1] - plan.dilation[1] * (w[3] - 1) - 1) / plan.stride[1] + 1;
    plan.conv_output = {x[0], w[0], oh, ow};
    value_shape = plan.conv_output;
  } else if (head.op == "softmax" || head.op == "layernorm") {
    const subgraphs::Shape x = shape_of(plan.operands[0]);
    if (axis_attr(head, "axis", -1, x.size()) != static_cast<int64_t>(x.size()) - 1) {
      out.reason = head.op + " along an axis other than the last";
      return out;
    }
    plan.kind = head.op == "softmax" ? PlanKind::kSoftmax : PlanKind::kLayerNorm;
    plan.cols = x.back();
    plan.rows = subgraphs::element_count(x) / plan.cols;
    if (auto eps = head.node.find("eps"); eps != head.node.end() && eps->is_number()) plan.eps = eps->get<double>();
    value_shape = x;
  } else if (head.op == "reduce_sum") {
    const subgraphs::Shape x = shape_of(plan.operands[0]);
    auto axes = head.node.find("axes");
    if (x.size() != 2 || axes == head.node.end() || !axes->is_array() || axes->size() != 1 ||
        bool_attr(head, "keepdims")) {
      out.reason = "reduce_sum other than over one axis of a matrix";
      return out;
    }
    int64_t axis = (*axes)[0].get<int64_t>();
    if (axis < 0) axis += 2;
    plan.kind = PlanKind::kReduceSum;
    plan.reduce_axis = static_cast<int>(axis);
    plan.rows = x[0];
    plan.cols = x[1];
    value_shape = {axis == 0 ? x[1] : x[0]};
  } else if (contains(unary_ops(), head.op) || contains(binary_ops(), head.op)) {
    plan.kind = PlanKind::kEltwise;
    const subgraphs::Shape x = shape_of(plan.operands[0]);
    if (plan.operands.size() == 2 && shape_of(plan.operands[1]) != x) {
      out.reason = head.op + " with broadcasting";
      return out;
    }
    plan.elements = subgraphs::element_count(x);
    EltwiseStep first;
    first.op = head.op;
    if (head.op == "scale") {
      auto f = head.node.find("factor");
      first.factor = f != head.node.end() ? f->get<double>() : 1.0;
    }
    if (plan.operands.size() == 2) first.operand = plan.operands[1];
    plan.operands.resize(1);
    plan.steps.push_back(first);
    value_shape = x;
  } else {
    out.reason = "no library routine for " + head.op;
    return out;
  }

  // An optional bias over the channel (conv, axis 1) or the last axis (matmul).
  std::string value = head.output;
  if (next < spec.ops.size() && spec.ops[next].op == "bias_add" &&
      (plan.kind == PlanKind::kMatmul || plan.kind == PlanKind::kConv)) {
    const subgraphs::OpSpec& op = spec.ops[next];
    const int b = op.inputs.size() == 2 && op.inputs[0] == value ? input_of(op.inputs[1]) : -1;
    const int64_t want_axis = plan.kind == PlanKind::kConv ? 1 : static_cast<int64_t>(value_shape.size()) - 1;
    if (b < 0 || axis_attr(op, "axis", -1, value_shape.size()) != want_axis) {
      out.reason = "bias_add that is not a per-channel bias";
      return out;
    }
    plan.bias = b;
    value = op.output;
    names.push_back("bias_add");
    ++next;
  }
  // Then elementwise steps, each on the running value.
  for (; next < spec.ops.size(); ++next) {
    const subgraphs::OpSpec& op = spec.ops[next];
    EltwiseStep step;
    step.op = op.op;
    if (contains(unary_ops(), op.op) && op.inputs.size() == 1 && op.inputs[0] == value) {
      if (op.op == "scale") {
        auto f = op.node.find("factor");
        step.factor = f != op.node.end() ? f->get<double>() : 1.0;
      }
    } else if (contains(binary_ops(), op.op) && op.inputs.size() == 2 && op.inputs[0] == value &&
               input_of(op.inputs[1]) >= 0 && shape_of(input_of(op.inputs[1])) == value_shape) {
      step.operand = input_of(op.inputs[1]);
    } else {
      out.reason = op.op + " (" + op.path + ") is not an elementwise step on the previous result";
      return out;
    }
    plan.steps.push_back(step);
    value = op.output;
    names.push_back(op.op);
  }
  if (plan.kind != PlanKind::kMatmul && plan.kind != PlanKind::kConv && plan.kind != PlanKind::kEltwise &&
      !plan.steps.empty()) {
    out.reason = head.op + " followed by elementwise ops";
    return out;
  }
  for (const std::string& n : names) plan.summary += (plan.summary.empty() ? "" : " + ") + n;
  out.plan = plan;
  return out;
}

}  // namespace ktune::bench
