// Matching a spec subgraph onto the library calls a user would pick instead of a generated
// kernel: a matrix product (optionally batched, with a bias and an elementwise epilogue), a
// convolution with bias and elementwise post-ops, softmax, layer normalization, a column or
// row sum, or an elementwise chain. The plan is plain data; openblas_baseline.cc and
// onednn_baseline.cc decide which plans their library can run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "subgraphs/dtype.h"
#include "subgraphs/spec.h"

namespace ktune::bench {

// One elementwise step applied to the running value.
struct EltwiseStep {
  std::string op;      // "relu", "gelu", "sigmoid", "tanh", "exp", "neg", "scale", or a binary
                       // op "add", "sub", "mul", "div", "max", "min" with a spec input
  double factor = 1;   // "scale" only
  int operand = -1;    // binary ops: index of the spec input (same shape as the value); else -1
};

enum class PlanKind {
  kMatmul,     // [B,]M,K x [B,]K,N (+ bias over N) (+ steps)
  kConv,       // NCHW conv2d (+ bias over C) (+ steps)
  kSoftmax,    // softmax along the last axis of a [rows, cols] view
  kLayerNorm,  // layer normalization along the last axis, optional gamma and beta
  kReduceSum,  // sum of a rank-2 input over axis 0 (column sums) or axis 1 (row sums)
  kEltwise,    // a chain of elementwise steps on equally shaped spec inputs
};

struct LibraryPlan {
  PlanKind kind = PlanKind::kEltwise;
  // Indices of the spec inputs the main op reads (matmul: a, b; conv: x, w; softmax,
  // layernorm: x [, gamma [, beta]]; reduce: m; eltwise: the first value).
  std::vector<int> operands;
  int bias = -1;                    // spec input added along N (matmul) or C (conv); -1: none
  std::vector<EltwiseStep> steps;   // applied in order after the main op (and the bias)
  // Matmul: batch (1 when not batched), m, n, k and the transposes.
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
  // Conv: input [N, C, H, W], weights [OC, C/groups, KH, KW], output [N, OC, OH, OW].
  std::vector<int64_t> conv_input, conv_weights, conv_output;
  int64_t groups = 1;
  std::vector<int64_t> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  // Softmax, layernorm, reduce: the [rows, cols] view; eps for layernorm; reduce_axis 0 or 1.
  int64_t rows = 0, cols = 0;
  double eps = 1e-5;
  int reduce_axis = 0;
  // Elementwise: number of elements.
  int64_t elements = 0;
  // Conv: the spec's layout (NHWC: input [N, H, W, C], weights [KH, KW, C/groups, OC],
  // output [N, OH, OW, OC]); the shapes above are NCHW / OIHW either way.
  bool conv_nhwc = false;
  // Types: of every spec input (spec order) and of the output.
  std::vector<subgraphs::DType> input_dtypes;
  subgraphs::DType output_dtype = subgraphs::DType::kF32;
  // A final requantize: scale per tensor, or per channel from spec input `requant_scales`,
  // then the zero point.
  bool requantize = false;
  double requant_scale = 1;
  int requant_scales = -1;
  int64_t requant_zero_point = 0;
  // "matmul + bias_add + gelu": the ops as matched, for the detail column.
  std::string summary;

  // True when every input and the output are f32.
  bool all_f32() const;
  // "u8 x i8 -> u8": the types of the head op's operands and of the output.
  std::string type_summary() const;
};

// The plan for `spec`, or the reason it maps onto none of the library calls above (a
// stencil, several outputs, a broadcast, an op in the middle of a chain...).
struct PlanMatch {
  std::optional<LibraryPlan> plan;
  std::string reason;  // why not; empty when plan is set
};

// `output_dtype` is the type the subgraph stores its output in (SpecSubgraph::outputs()).
PlanMatch match_library_plan(const subgraphs::Spec& spec, subgraphs::DType output_dtype);

// Applies one elementwise step to `v` in float, the way the spec's reference defines it
// (GELU with the tanh approximation). `operand` is the binary operand's value.
float apply_step(const EltwiseStep& step, float v, float operand);

}  // namespace ktune::bench
