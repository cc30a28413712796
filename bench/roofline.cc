// The microbenchmarks behind roofline.h. The FMA kernels are compiled for their instruction
// set with target attributes and picked at run time, so the library itself needs no
// -march flag.
#include "bench/roofline.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "subgraphs/subgraph.h"


namespace ktune::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Independent accumulators: enough to cover the FMA latency times the FMA ports. The loops
// over them are fully unrolled so that they stay in registers (a loop over an array in
// memory would measure store forwarding instead of the FMA units).
// AVX-512 has 32 vector registers, AVX2 and SSE 16.
constexpr int kAccumulators = 24;
constexpr int kAccumulators16 = 12;

__attribute__((target("avx512f"))) float fma_avx512(int64_t iterations, float seed) {
  __m512 acc[kAccumulators];
#pragma GCC unroll 32
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(seed + i);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 32
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
#pragma GCC unroll 32
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t iterations, float seed) {
  __m256 acc[kAccumulators16];
#pragma GCC unroll 32
  for (int i = 0; i < kAccumulators16; ++i) acc[i] = _mm256_set1_ps(seed + i);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 32
    for (int i = 0; i < kAccumulators16; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
#pragma GCC unroll 32
  for (int i = 1; i < kAccumulators16; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

float fma_sse(int64_t iterations, float seed) {
  __m128 acc[kAccumulators16];
#pragma GCC unroll 32
  for (int i = 0; i < kAccumulators16; ++i) acc[i] = _mm_set1_ps(seed + i);
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 32
    for (int i = 0; i < kAccumulators16; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], a), b);
  }
  __m128 sum = acc[0];
#pragma GCC unroll 32
  for (int i = 1; i < kAccumulators16; ++i) sum = _mm_add_ps(sum, acc[i]);
  float lanes[4];
  _mm_storeu_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// vdpbf16ps on independent accumulators: each instruction multiplies 32 bf16 pairs and
// adds them into 16 f32 lanes.
__attribute__((target("avx512f,avx512bf16"))) float dot_bf16(int64_t iterations, float seed) {
  __m512 acc[kAccumulators];
#pragma GCC unroll 32
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(seed + i);
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-7f), _mm512_set1_ps(-1e-7f));
  for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 32
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
#pragma GCC unroll 32
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

// vpdpbusd on independent accumulators: each instruction multiplies 64 u8 × s8 pairs and
// adds them in groups of four into 16 s32 lanes.
__attribute__((target("avx512f,avx512vnni"))) float dot_u8s8(int64_t iterations, float seed) {
  __m512i acc[kAccumulators];
#pragma GCC unroll 32
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_epi32(static_cast<int>(seed) + i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-1);
  for (int64_t n = 0; n < iterations; ++n) {
#pragma GCC unroll 32
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  __m512i sum = acc[0];
#pragma GCC unroll 32
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  return static_cast<float>(_mm512_reduce_add_epi32(sum));
}

// Runs `body(thread)` on `threads` threads released together; returns the wall seconds. The
// calling thread runs body(0) itself, so no extra thread competes for a core while the
// workers run.
template <typename Body>
double timed_parallel(int threads, Body body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      body(t);
    });
  }
  while (ready.load() < threads - 1) {
  }
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  body(0);
  for (std::thread& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Memory aligned for vector stores and freed with std::free.
struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
std::unique_ptr<float, FreeDeleter> aligned_floats(int64_t n) {
  const size_t bytes = ((static_cast<size_t>(n) * sizeof(float) + 127) / 128) * 128;
  return std::unique_ptr<float, FreeDeleter>(static_cast<float*>(std::aligned_alloc(128, bytes)));
}

// Operations per second of `kernel` (which does `ops_per_iteration` per iteration) on
// every thread: the fastest of `trials` trials after one warm-up trial.
double kernel_rate(float (*kernel)(int64_t, float), double ops_per_iteration, int threads, int trials, int64_t iterations) {
  std::vector<float> sink(threads);
  double best_seconds = 1e30;
  for (int trial = 0; trial < trials + 1; ++trial) {
    const double s = timed_parallel(threads, [&](int t) { sink[t] = kernel(iterations, 1.0f + t); });
    if (trial > 0) best_seconds = std::min(best_seconds, s);
  }
  volatile float keep = sink[0];
  (void)keep;
  return ops_per_iteration * threads * static_cast<double>(iterations) / best_seconds;
}

}  // namespace

double Roofline::peak_for(subgraphs::DType dtype) const {
  if (dtype == subgraphs::DType::kBF16 && peak_bf16_flops > 0) return peak_bf16_flops;
  if ((dtype == subgraphs::DType::kU8 || dtype == subgraphs::DType::kI8) && peak_int8_ops > 0) return peak_int8_ops;
  return peak_flops;
}

double Roofline::time_ns(double flops, double bytes, subgraphs::DType dtype) const {
  const double peak = peak_for(dtype);
  const double compute = peak > 0 ? flops / peak : 0;
  const double memory = bandwidth_bytes > 0 ? bytes / bandwidth_bytes : 0;
  return std::max(compute, memory) * 1e9;
}

double subgraph_compute_ns(const Roofline& roofline, const subgraphs::Subgraph& sg) {
  const subgraphs::DType dtype = sg.inputs().empty() ? subgraphs::DType::kF32 : sg.inputs().front().dtype;
  return roofline.time_ns(sg.flops(), 0, dtype);
}

double subgraph_memory_ns(const Roofline& roofline, const subgraphs::Subgraph& sg) {
  return roofline.time_ns(0, sg.compulsory_bytes());
}

double subgraph_roofline_ns(const Roofline& roofline, const subgraphs::Subgraph& sg) {
  return std::max(subgraph_compute_ns(roofline, sg), subgraph_memory_ns(roofline, sg));
}

std::string Roofline::describe() const {
  char buf[200];
  std::snprintf(buf, sizeof(buf), "peak %.1f GFLOP/s (%d threads, %d-lane FMA), triad %.1f GB/s (3 x %.0f MiB)",
                peak_flops / 1e9, threads, vector_lanes, bandwidth_bytes / 1e9, triad_bytes / (1024.0 * 1024.0));
  std::string text = buf;
  if (peak_bf16_flops > 0) {
    std::snprintf(buf, sizeof(buf), ", bf16 dot %.1f GFLOP/s", peak_bf16_flops / 1e9);
    text += buf;
  }
  if (peak_int8_ops > 0) {
    std::snprintf(buf, sizeof(buf), ", u8 x s8 dot %.1f GOP/s", peak_int8_ops / 1e9);
    text += buf;
  }
  return text;
}

Roofline measure_roofline(const RooflineOptions& options) {
  Roofline r;
  r.threads = std::max(1, options.threads);
  const int trials = std::max(1, options.trials);

  __builtin_cpu_init();
  float (*kernel)(int64_t, float) = fma_sse;
  r.vector_lanes = 4;
  int accumulators = kAccumulators16;
  if (__builtin_cpu_supports("avx512f")) {
    kernel = fma_avx512;
    r.vector_lanes = 16;
    accumulators = kAccumulators;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = fma_avx2;
    r.vector_lanes = 8;
  }
  const int64_t iterations = std::max<int64_t>(1000, options.fma_iterations);
  // Trial 0 of each kernel warms the cores up (frequency, caches) and does not count.
  r.peak_flops = kernel_rate(kernel, 2.0 * accumulators * r.vector_lanes, r.threads, trials, iterations);
  if (__builtin_cpu_supports("avx512bf16")) {
    r.peak_bf16_flops = kernel_rate(dot_bf16, 2.0 * kAccumulators * 32, r.threads, trials, iterations);
  }
  if (__builtin_cpu_supports("avx512vnni")) {
    r.peak_int8_ops = kernel_rate(dot_u8s8, 2.0 * kAccumulators * 64, r.threads, trials, iterations);
  }
  double best_seconds = 1e30;

  int64_t n = options.triad_elements;
  if (n <= 0) {
    const int64_t llc = options.llc_bytes > 0 ? options.llc_bytes : 32 << 20;
    const int64_t bytes = std::clamp<int64_t>(4 * llc, int64_t{64} << 20, int64_t{512} << 20);
    n = bytes / static_cast<int64_t>(sizeof(float));
  }
  r.triad_bytes = n * static_cast<int64_t>(sizeof(float));
  auto a = aligned_floats(n), b = aligned_floats(n), c = aligned_floats(n);
  const int64_t chunk = (n + r.threads - 1) / r.threads;
  // First touch by the threads that will stream the data.
  timed_parallel(r.threads, [&](int t) {
    const int64_t lo = t * chunk, hi = std::min(n, lo + chunk);
    for (int64_t i = lo; i < hi; ++i) {
      a.get()[i] = 0;
      b.get()[i] = 1.0f + static_cast<float>(i & 7);
      c.get()[i] = 2.0f;
    }
  });
  const float scalar = 3.0f;
  best_seconds = 1e30;
  for (int trial = 0; trial < trials + 1; ++trial) {
    const double s = timed_parallel(r.threads, [&](int t) {
      const int64_t lo = t * chunk, hi = std::min(n, lo + chunk);
      float* __restrict pa = a.get();
      const float* __restrict pb = b.get();
      const float* __restrict pc = c.get();
      for (int64_t i = lo; i < hi; ++i) pa[i] = pb[i] + scalar * pc[i];
    });
    if (trial > 0) best_seconds = std::min(best_seconds, s);  // trial 0 warms the pages
  }
  r.bandwidth_bytes = 3.0 * static_cast<double>(r.triad_bytes) / best_seconds;
  volatile float keep = a.get()[n / 2];
  (void)keep;
  return r;
}

}  // namespace ktune::bench
