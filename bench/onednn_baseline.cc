// The oneDNN baseline (Debian's libdnnl, OpenMP runtime): matmul with bias and eltwise or
// binary post-ops, convolution with bias and post-ops, softmax, layer normalization, sum
// reduction, and elementwise chains as one eltwise or binary primitive with post-ops. Every
// primitive is created once (in the measuring child) and executed per call on the user's
// plain row-major buffers. Convolutions let oneDNN pick its blocked layouts: the weights
// are reordered once at creation (as inference code pre-packs them), while the activation
// reorders in and out of NCHW are part of every timed call. Low precision runs as oneDNN
// runs it: bf16 and f16 operands accumulate in f32, u8 × s8 in s32, and a final requantize
// becomes output scales (per tensor, or per channel from the spec input) and a destination
// zero point; oneDNN picks its AVX512-BF16 and VNNI kernels itself where the CPU has them.
#include <dlfcn.h>

#include <dnnl.hpp>
#include <stdexcept>
#include <unordered_map>

#include "subgraphs/dtype.h"

#include "bench/library_kernel.h"

namespace ktune::bench {
namespace {

using dnnl::algorithm;
using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

// libdnnl uses OpenMP; ktune itself does not link it, so reach omp_set_num_threads through
// the libgomp that libdnnl loaded.
void set_openmp_threads(int threads) {
  using Fn = void (*)(int);
  if (auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) fn(threads);
}

algorithm binary_algorithm(const std::string& op) {
  if (op == "add") return algorithm::binary_add;
  if (op == "sub") return algorithm::binary_sub;
  if (op == "mul") return algorithm::binary_mul;
  if (op == "div") return algorithm::binary_div;
  if (op == "max") return algorithm::binary_max;
  return algorithm::binary_min;
}

// Eltwise algorithm, alpha and beta of a unary step.
struct EltwiseAlg {
  algorithm alg;
  float alpha = 0, beta = 0;
};
EltwiseAlg eltwise_algorithm(const EltwiseStep& s) {
  if (s.op == "relu") return {algorithm::eltwise_relu, 0, 0};
  if (s.op == "gelu") return {algorithm::eltwise_gelu_tanh, 0, 0};
  if (s.op == "sigmoid") return {algorithm::eltwise_logistic, 0, 0};
  if (s.op == "tanh") return {algorithm::eltwise_tanh, 0, 0};
  if (s.op == "exp") return {algorithm::eltwise_exp, 0, 0};
  if (s.op == "neg") return {algorithm::eltwise_linear, -1, 0};
  return {algorithm::eltwise_linear, static_cast<float>(s.factor), 0};  // scale
}

// Post-ops for `steps` on a value of descriptor `md`; binary operands are recorded with
// their post-op index.
dnnl::primitive_attr post_op_attr(const std::vector<EltwiseStep>& steps, const memory::desc& md,
                                  std::vector<std::pair<int, int>>* binary_operands) {
  dnnl::post_ops ops;
  for (size_t i = 0; i < steps.size(); ++i) {
    const EltwiseStep& s = steps[i];
    if (s.operand >= 0) {
      ops.append_binary(binary_algorithm(s.op), md);
      binary_operands->emplace_back(static_cast<int>(i), s.operand);
    } else {
      const EltwiseAlg e = eltwise_algorithm(s);
      ops.append_eltwise(1.0f, e.alg, e.alpha, e.beta);
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

memory::dims dims_of(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

// oneDNN's type for a spec type; throws for types it has no kernels for.
Dt onednn_type(subgraphs::DType dtype) {
  switch (dtype) {
    case subgraphs::DType::kF32: return Dt::f32;
    case subgraphs::DType::kBF16: return Dt::bf16;
    case subgraphs::DType::kF16: return Dt::f16;
    case subgraphs::DType::kU8: return Dt::u8;
    case subgraphs::DType::kI8: return Dt::s8;
    case subgraphs::DType::kI32: return Dt::s32;
    default: break;
  }
  throw std::runtime_error("oneDNN has no " + subgraphs::to_string(dtype) + " data type");
}

Dt input_type(const LibraryPlan& p, int index) { return onednn_type(p.input_dtypes.at(index)); }

// A final requantize as oneDNN expresses it: output scales, then a destination zero point.
// Per-channel scales along `channel_mask` are `scales` when given (convolutions take them at
// creation), else given at run time (matmul: the spec input, bound by the caller).
void add_requantize(const LibraryPlan& p, int channel_mask, const std::vector<float>& scales, dnnl::primitive_attr& attr) {
  if (!p.requantize) return;
  if (p.requant_scales >= 0) {
    attr.set_output_scales(channel_mask, scales.empty() ? std::vector<float>{DNNL_RUNTIME_F32_VAL} : scales);
  } else {
    attr.set_output_scales(0, {static_cast<float>(p.requant_scale)});
  }
  if (p.requant_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {static_cast<int32_t>(p.requant_zero_point)});
}

// A primitive and the memories it reads, rebound to the caller's buffers on every call.
class OnednnKernel : public LibraryKernel {
 public:
  explicit OnednnKernel(int threads) : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) { set_openmp_threads(threads); }

  void run(const std::vector<const void*>& in, void* out) override {
    for (auto& [arg, index] : input_args_) args_.at(arg).set_data_handle(const_cast<void*>(in[index]));
    for (Widened& w : widened_) {
      for (size_t i = 0; i < w.values.size(); ++i) w.values[i] = static_cast<float>(subgraphs::load_element(w.dtype, static_cast<const char*>(in[w.index]) + i * subgraphs::bytes_of(w.dtype)));
    }
    if (reorder_in_) {
      user_src_.set_data_handle(const_cast<void*>(in[src_index_]));
      reorder_in_.execute(stream_, user_src_, args_.at(DNNL_ARG_SRC));
    }
    if (reorder_out_) {
      user_dst_.set_data_handle(out);
    } else {
      args_.at(DNNL_ARG_DST).set_data_handle(out);
    }
    primitive_.execute(stream_, args_);
    if (reorder_out_) reorder_out_.execute(stream_, args_.at(DNNL_ARG_DST), user_dst_);
    stream_.wait();
  }

  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive primitive_;
  std::unordered_map<int, memory> args_;
  std::vector<std::pair<int, int>> input_args_;  // (argument, spec input) rebound per call
  // Convolutions: reorders between the user's NCHW and the primitive's layout.
  dnnl::reorder reorder_in_, reorder_out_;
  memory user_src_, user_dst_;
  int src_index_ = -1;

  // An f32 argument that a spec input of another type is widened into on every call
  // (layer normalization's scale and shift are f32 in oneDNN whatever the data's type).
  struct Widened {
    int index;
    subgraphs::DType dtype;
    std::vector<float> values;
  };
  std::vector<Widened> widened_;

  void bind_widened(int arg, const memory::desc& md, int index, subgraphs::DType dtype) {
    if (dtype == subgraphs::DType::kF32) return bind_input(arg, md, index);
    widened_.push_back({index, dtype, std::vector<float>(md.get_size() / sizeof(float))});
    args_[arg] = memory(md, engine_, widened_.back().values.data());
  }

  // Memories for an argument bound to a spec input (handle set per call).
  void bind_input(int arg, const memory::desc& md, int index) {
    args_[arg] = memory(md, engine_, DNNL_MEMORY_NONE);
    input_args_.emplace_back(arg, index);
  }
  void bind_binary_operands(const std::vector<std::pair<int, int>>& operands, const memory::desc& md) {
    for (auto [post_op, index] : operands) bind_input(DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_op) | DNNL_ARG_SRC_1, md, index);
  }
};

std::unique_ptr<LibraryKernel> make_matmul(const LibraryPlan& p, int threads) {
  auto k = std::make_unique<OnednnKernel>(threads);
  const bool batched = p.batch > 1;
  auto md = [&](int64_t rows, int64_t cols, bool transposed, Dt type) {
    // A row-major [rows, cols] operand, or its transpose stored as [cols, rows].
    memory::dims dims = batched ? memory::dims{p.batch, rows, cols} : memory::dims{rows, cols};
    memory::dims strides = transposed ? memory::dims{1, rows} : memory::dims{cols, 1};
    if (batched) strides.insert(strides.begin(), rows * cols);
    return memory::desc(dims, type, strides);
  };
  const memory::desc src = md(p.m, p.k, p.transpose_a, input_type(p, p.operands[0]));
  const memory::desc weights = md(p.k, p.n, p.transpose_b, input_type(p, p.operands[1]));
  const memory::desc dst = md(p.m, p.n, false, onednn_type(p.output_dtype));
  std::vector<std::pair<int, int>> operands;
  dnnl::primitive_attr attr = post_op_attr(p.steps, dst, &operands);
  add_requantize(p, 1 << (batched ? 2 : 1), {}, attr);
  if (p.requant_scales >= 0) k->bind_input(DNNL_ARG_ATTR_OUTPUT_SCALES, memory::desc({p.n}, Dt::f32, Tag::a), p.requant_scales);
  dnnl::matmul::primitive_desc pd;
  if (p.bias >= 0) {
    const Dt bias_type = input_type(p, p.bias);
    const memory::desc bias = batched ? memory::desc({1, 1, p.n}, bias_type, Tag::abc) : memory::desc({1, p.n}, bias_type, Tag::ab);
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), attr, k->engine_);
    k->bind_input(DNNL_ARG_BIAS, bias, p.bias);
  } else {
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, k->engine_);
  }
  k->primitive_ = dnnl::matmul(pd);
  k->bind_input(DNNL_ARG_SRC, src, p.operands[0]);
  k->bind_input(DNNL_ARG_WEIGHTS, weights, p.operands[1]);
  k->args_[DNNL_ARG_DST] = memory(dst, k->engine_, DNNL_MEMORY_NONE);
  k->bind_binary_operands(operands, dst);
  return k;
}

// The per-channel requantize scales of a convolution, read from its spec input.
std::vector<float> conv_scales(const LibraryPlan& p, const std::vector<const void*>& in) {
  if (p.requant_scales < 0) return {};
  const float* s = static_cast<const float*>(in[p.requant_scales]);
  return std::vector<float>(s, s + p.conv_weights[0]);
}

std::unique_ptr<LibraryKernel> make_conv(const LibraryPlan& p, int threads, const std::vector<const void*>& in) {
  const void* weights_data = in[p.operands[1]];
  auto k = std::make_unique<OnednnKernel>(threads);
  const memory::dims src_dims = dims_of(p.conv_input), dst_dims = dims_of(p.conv_output);
  const auto& w = p.conv_weights;
  if (p.conv_nhwc && p.groups > 1) throw std::runtime_error("grouped NHWC convolutions are not benchmarked");
  const memory::dims w_dims = p.groups > 1 ? memory::dims{p.groups, w[0] / p.groups, w[1], w[2], w[3]} : dims_of(w);
  const Tag w_tag = p.groups > 1 ? Tag::goihw : (p.conv_nhwc ? Tag::hwio : Tag::oihw);
  const Tag act_tag = p.conv_nhwc ? Tag::nhwc : Tag::nchw;
  const Dt src_type = input_type(p, p.operands[0]), w_type = input_type(p, p.operands[1]);
  const Dt dst_type = onednn_type(p.output_dtype);
  const memory::desc src_any(src_dims, src_type, Tag::any), dst_any(dst_dims, dst_type, Tag::any),
      w_any(w_dims, w_type, Tag::any), bias_md({w[0]}, p.bias >= 0 ? input_type(p, p.bias) : Dt::f32, Tag::a);
  const memory::dims strides = dims_of(p.stride);
  const memory::dims dilates = {p.dilation[0] - 1, p.dilation[1] - 1};
  const memory::dims padding = dims_of(p.padding);
  std::vector<std::pair<int, int>> operands;
  const memory::desc dst_user(dst_dims, dst_type, act_tag);
  dnnl::primitive_attr attr = post_op_attr(p.steps, dst_user, &operands);
  if (!operands.empty()) throw std::runtime_error("binary post-ops on a convolution are not benchmarked");
  add_requantize(p, 1 << 1, conv_scales(p, in), attr);
  dnnl::convolution_forward::primitive_desc pd;
  if (p.bias >= 0) {
    pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm::convolution_direct, src_any, w_any,
                                        bias_md, dst_any, strides, dilates, padding, padding),
        attr, k->engine_);
    k->bind_input(DNNL_ARG_BIAS, bias_md, p.bias);
  } else {
    pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm::convolution_direct, src_any, w_any,
                                        dst_any, strides, dilates, padding, padding),
        attr, k->engine_);
  }
  k->primitive_ = dnnl::convolution_forward(pd);
  // Weights: reordered once into the primitive's layout.
  memory user_w({w_dims, w_type, w_tag}, k->engine_, const_cast<void*>(weights_data));
  memory packed_w(pd.weights_desc(), k->engine_);
  dnnl::reorder(user_w, packed_w).execute(k->stream_, user_w, packed_w);
  k->stream_.wait();
  k->args_[DNNL_ARG_WEIGHTS] = packed_w;
  // Activations: the spec's layout at the user's side, reordered per call when the primitive's differs.
  const memory::desc src_user(src_dims, src_type, act_tag);
  k->src_index_ = p.operands[0];
  if (pd.src_desc() != src_user) {
    k->user_src_ = memory(src_user, k->engine_, DNNL_MEMORY_NONE);
    k->args_[DNNL_ARG_SRC] = memory(pd.src_desc(), k->engine_);
    k->reorder_in_ = dnnl::reorder(k->user_src_, k->args_[DNNL_ARG_SRC]);
  } else {
    k->bind_input(DNNL_ARG_SRC, src_user, p.operands[0]);
  }
  if (pd.dst_desc() != dst_user) {
    k->user_dst_ = memory(dst_user, k->engine_, DNNL_MEMORY_NONE);
    k->args_[DNNL_ARG_DST] = memory(pd.dst_desc(), k->engine_);
    k->reorder_out_ = dnnl::reorder(k->args_[DNNL_ARG_DST], k->user_dst_);
  } else {
    k->args_[DNNL_ARG_DST] = memory(dst_user, k->engine_, DNNL_MEMORY_NONE);
  }
  return k;
}

std::unique_ptr<LibraryKernel> make_rows_op(const LibraryPlan& p, int threads) {
  auto k = std::make_unique<OnednnKernel>(threads);
  const memory::desc data({p.rows, p.cols}, input_type(p, p.operands[0]), Tag::ab);
  const memory::desc out({p.rows, p.cols}, onednn_type(p.output_dtype), Tag::ab);
  if (p.kind == PlanKind::kSoftmax) {
    if (out != data) throw std::runtime_error("a softmax storing another type than it reads is not benchmarked");
    k->primitive_ = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, data, 1), k->engine_));
  } else {
    auto flags = dnnl::normalization_flags::none;
    if (p.operands.size() > 1) flags |= dnnl::normalization_flags::use_scale;
    if (p.operands.size() > 2) flags |= dnnl::normalization_flags::use_shift;
    k->primitive_ = dnnl::layer_normalization_forward(dnnl::layer_normalization_forward::primitive_desc(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, data, out, static_cast<float>(p.eps), flags),
        k->engine_));
    const memory::desc vec({p.cols}, Dt::f32, Tag::a);
    if (p.operands.size() > 1) k->bind_widened(DNNL_ARG_SCALE, vec, p.operands[1], p.input_dtypes.at(p.operands[1]));
    if (p.operands.size() > 2) k->bind_widened(DNNL_ARG_SHIFT, vec, p.operands[2], p.input_dtypes.at(p.operands[2]));
  }
  k->bind_input(DNNL_ARG_SRC, data, p.operands[0]);
  k->args_[DNNL_ARG_DST] = memory(out, k->engine_, DNNL_MEMORY_NONE);
  return k;
}

std::unique_ptr<LibraryKernel> make_reduce(const LibraryPlan& p, int threads) {
  auto k = std::make_unique<OnednnKernel>(threads);
  const memory::desc src({p.rows, p.cols}, input_type(p, p.operands[0]), Tag::ab);
  const memory::desc dst(p.reduce_axis == 0 ? memory::dims{1, p.cols} : memory::dims{p.rows, 1}, onednn_type(p.output_dtype), Tag::ab);
  k->primitive_ = dnnl::reduction(dnnl::reduction::primitive_desc(
      dnnl::reduction::desc(algorithm::reduction_sum, src, dst, 0.0f, 0.0f), k->engine_));
  k->bind_input(DNNL_ARG_SRC, src, p.operands[0]);
  k->args_[DNNL_ARG_DST] = memory(dst, k->engine_, DNNL_MEMORY_NONE);
  return k;
}

std::unique_ptr<LibraryKernel> make_eltwise(const LibraryPlan& p, int threads) {
  auto k = std::make_unique<OnednnKernel>(threads);
  const memory::desc md({p.elements}, input_type(p, p.operands[0]), Tag::a);
  if (p.output_dtype != p.input_dtypes.at(p.operands[0])) throw std::runtime_error("an elementwise chain storing another type is not benchmarked");
  const EltwiseStep& head = p.steps.front();
  const std::vector<EltwiseStep> rest(p.steps.begin() + 1, p.steps.end());
  std::vector<std::pair<int, int>> operands;
  const dnnl::primitive_attr attr = post_op_attr(rest, md, &operands);
  if (head.operand >= 0) {
    k->primitive_ = dnnl::binary(
        dnnl::binary::primitive_desc(dnnl::binary::desc(binary_algorithm(head.op), md, md, md), attr, k->engine_));
    k->bind_input(DNNL_ARG_SRC_0, md, p.operands[0]);
    k->bind_input(DNNL_ARG_SRC_1, md, head.operand);
  } else {
    const EltwiseAlg e = eltwise_algorithm(head);
    k->primitive_ = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, e.alg, md, e.alpha, e.beta), attr, k->engine_));
    k->bind_input(DNNL_ARG_SRC, md, p.operands[0]);
  }
  k->args_[DNNL_ARG_DST] = memory(md, k->engine_, DNNL_MEMORY_NONE);
  k->bind_binary_operands(operands, md);
  return k;
}

// Convolution weights are packed at creation, and requantize scales fixed then, so its
// kernel needs them then: the first run() creates the primitive (run once, untimed, by the
// correctness check).
class LazyConvKernel : public LibraryKernel {
 public:
  LazyConvKernel(LibraryPlan plan, int threads) : plan_(std::move(plan)), threads_(threads) {}
  void run(const std::vector<const void*>& in, void* out) override {
    if (!conv_) conv_ = make_conv(plan_, threads_, in);
    conv_->run(in, out);
  }

 private:
  LibraryPlan plan_;
  int threads_;
  std::unique_ptr<LibraryKernel> conv_;
};

std::string primitive_name(const LibraryPlan& p) {
  switch (p.kind) {
    case PlanKind::kMatmul: return "dnnl::matmul";
    case PlanKind::kConv:
      return std::string("dnnl::convolution_forward (weights pre-packed; ") + (p.conv_nhwc ? "NHWC" : "NCHW") + " reorders timed)";
    case PlanKind::kSoftmax: return "dnnl::softmax_forward";
    case PlanKind::kLayerNorm: return "dnnl::layer_normalization_forward";
    case PlanKind::kReduceSum: return "dnnl::reduction (sum)";
    case PlanKind::kEltwise: return p.steps.front().operand >= 0 ? "dnnl::binary" : "dnnl::eltwise_forward";
  }
  return "";
}

}  // namespace

LibraryMethod onednn_method(const PlanMatch& match) {
  LibraryMethod m;
  m.method = "onednn";
  if (!match.plan) {
    m.unsupported = match.reason;
    return m;
  }
  const LibraryPlan plan = *match.plan;
  if (plan.kind == PlanKind::kConv) {
    for (const EltwiseStep& s : plan.steps) {
      if (s.operand >= 0) {
        m.unsupported = "convolution followed by a binary op";
        return m;
      }
    }
  }
  const size_t post_ops = plan.steps.size() - (plan.kind == PlanKind::kEltwise ? 1 : 0);
  m.routine = primitive_name(plan) + (plan.bias >= 0 ? " with bias" : "") +
              (post_ops > 0 ? " + " + std::to_string(post_ops) + " fused post-op" + (post_ops > 1 ? "s" : "") : "") +
              (plan.requantize ? " + output scales" + std::string(plan.requant_zero_point != 0 ? " and zero point" : "") : "") +
              (plan.all_f32() ? "" : ", " + plan.type_summary());
  m.make = [plan](int threads) -> std::unique_ptr<LibraryKernel> {
    switch (plan.kind) {
      case PlanKind::kMatmul: return make_matmul(plan, threads);
      case PlanKind::kConv: return std::make_unique<LazyConvKernel>(plan, threads);
      case PlanKind::kSoftmax:
      case PlanKind::kLayerNorm: return make_rows_op(plan, threads);
      case PlanKind::kReduceSum: return make_reduce(plan, threads);
      case PlanKind::kEltwise: return make_eltwise(plan, threads);
    }
    return nullptr;
  };
  return m;
}

}  // namespace ktune::bench
