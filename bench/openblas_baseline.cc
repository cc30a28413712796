// The OpenBLAS baseline: cblas_sgemm for matrix products (a loop of sgemm calls over the
// batch), cblas_sgemv against a vector of ones for row and column sums. BLAS cannot fuse a
// bias or an activation, so those run afterwards as a separate C++ pass over the output,
// split across the same number of threads, which the detail column says. f32 only.
#include <cblas.h>

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/library_kernel.h"

namespace ktune::bench {
namespace {

// The inputs of an f32 plan (openblas_method refuses the others).
std::vector<const float*> as_floats(const std::vector<const void*>& inputs) {
  std::vector<const float*> floats;
  for (const void* p : inputs) floats.push_back(static_cast<const float*>(p));
  return floats;
}

class SgemmKernel : public LibraryKernel {
 public:
  SgemmKernel(LibraryPlan plan, int threads) : plan_(std::move(plan)), threads_(std::max(1, threads)) {}

  void run(const std::vector<const void*>& inputs, void* output) override {
    const LibraryPlan& p = plan_;
    const std::vector<const float*> in = as_floats(inputs);
    float* out = static_cast<float*>(output);
    const float* a = in[p.operands[0]];
    const float* b = in[p.operands[1]];
    for (int64_t i = 0; i < p.batch; ++i) {
      cblas_sgemm(CblasRowMajor, p.transpose_a ? CblasTrans : CblasNoTrans, p.transpose_b ? CblasTrans : CblasNoTrans,
                  p.m, p.n, p.k, 1.0f, a + i * p.m * p.k, p.transpose_a ? p.m : p.k, b + i * p.k * p.n,
                  p.transpose_b ? p.k : p.n, 0.0f, out + i * p.m * p.n, p.n);
    }
    if (p.bias < 0 && p.steps.empty()) return;
    // The epilogue pass: bias over N, then the elementwise steps, on threads_ threads.
    const float* bias = p.bias >= 0 ? in[p.bias] : nullptr;
    const int64_t total = p.batch * p.m * p.n;
    auto pass = [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        float v = out[i];
        if (bias) v += bias[i % p.n];
        for (const EltwiseStep& s : p.steps) v = apply_step(s, v, s.operand >= 0 ? in[s.operand][i] : 0.0f);
        out[i] = v;
      }
    };
    const int64_t chunk = (total + threads_ - 1) / threads_;
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads_; ++t) {
      helpers.emplace_back(pass, std::min(total, t * chunk), std::min(total, (t + 1) * chunk));
    }
    pass(0, std::min(total, chunk));
    for (std::thread& h : helpers) h.join();
  }

 private:
  LibraryPlan plan_;
  int threads_;  // threads of the epilogue pass
};

class SgemvSumKernel : public LibraryKernel {
 public:
  explicit SgemvSumKernel(LibraryPlan plan) : plan_(std::move(plan)), ones_(plan_.reduce_axis == 0 ? plan_.rows : plan_.cols, 1.0f) {}

  void run(const std::vector<const void*>& inputs, void* output) override {
    const LibraryPlan& p = plan_;
    const std::vector<const float*> in = as_floats(inputs);
    float* out = static_cast<float*>(output);
    // Column sums are m^T . 1, row sums m . 1.
    cblas_sgemv(CblasRowMajor, p.reduce_axis == 0 ? CblasTrans : CblasNoTrans, p.rows, p.cols, 1.0f, in[p.operands[0]],
                p.cols, ones_.data(), 1, 0.0f, out, 1);
  }

 private:
  LibraryPlan plan_;
  std::vector<float> ones_;
};

}  // namespace

LibraryMethod openblas_method(const PlanMatch& match) {
  LibraryMethod m;
  m.method = "openblas";
  if (!match.plan) {
    m.unsupported = match.reason;
    return m;
  }
  const LibraryPlan plan = *match.plan;
  if (!plan.all_f32()) {
    // Debian's OpenBLAS is built without its bf16 routines (cblas_sbgemm) and has no int8 GEMM.
    m.unsupported = "OpenBLAS computes in f32 only (" + plan.type_summary() + ")";
    return m;
  }
  if (plan.kind == PlanKind::kMatmul) {
    m.routine = plan.batch > 1 ? "cblas_sgemm x " + std::to_string(plan.batch) + " (batch loop)" : "cblas_sgemm";
    if (plan.bias >= 0 || !plan.steps.empty()) m.routine += "; bias/activation in a separate C++ pass over the output on the same threads (BLAS cannot fuse them)";
    m.make = [plan](int threads) -> std::unique_ptr<LibraryKernel> {
      openblas_set_num_threads(threads);
      return std::make_unique<SgemmKernel>(plan, threads);
    };
  } else if (plan.kind == PlanKind::kReduceSum) {
    m.routine = plan.reduce_axis == 0 ? "cblas_sgemv (m^T . ones)" : "cblas_sgemv (m . ones)";
    m.make = [plan](int threads) -> std::unique_ptr<LibraryKernel> {
      openblas_set_num_threads(threads);
      return std::make_unique<SgemvSumKernel>(plan);
    };
  } else {
    m.unsupported = "BLAS has no routine for " + plan.summary;
  }
  return m;
}

}  // namespace ktune::bench
