// The physical limits of the host, measured by two small microbenchmarks, and the roofline
// time of a subgraph: max(FLOPs / peak FLOP/s, compulsory bytes / bandwidth).
//   Peak: fp32 fused multiply-adds on independent register accumulators (16-wide AVX-512,
//   8-wide AVX2, or 4-wide SSE, whichever the CPU has), one thread per core.
//   Bandwidth: the STREAM triad a[i] = b[i] + s * c[i] on three arrays far larger than the
//   last-level cache, counted as STREAM counts it (12 bytes per element, no write-allocate).
//   Low-precision peaks, where the CPU has the instructions: bf16 dot products
//   (vdpbf16ps, AVX512-BF16: 32 products and 32 adds per instruction) and u8 × s8 dot
//   products (vpdpbusd, AVX512-VNNI: 64 of each), measured the same way. A subgraph's
//   compute bound uses the peak of the type its inputs have.
// Both take the best of several trials: the limit is what the machine can reach.
#pragma once

#include <cstdint>
#include <string>

#include "subgraphs/dtype.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::bench {

struct RooflineOptions {
  // Threads of both microbenchmarks; >= 1.
  int threads = 1;
  // Trials of each microbenchmark; the fastest counts; >= 1.
  int trials = 5;
  // Elements of each triad array; 0 means 4x the last-level cache (at least 64 MiB of floats
  // per array, at most 512 MiB).
  int64_t triad_elements = 0;
  // Last-level cache in bytes, for the default triad size; <= 0 when unknown.
  int64_t llc_bytes = -1;
  // FMA iterations per thread per trial (each iteration is accumulators x lanes FMAs).
  int64_t fma_iterations = 20000000;
};

struct Roofline {
  double peak_flops = 0;        // fp32 FLOP/s with every thread (an FMA counts as 2 FLOPs)
  double peak_bf16_flops = 0;   // vdpbf16ps FLOP/s; 0 without AVX512-BF16
  double peak_int8_ops = 0;     // vpdpbusd multiply-adds ×2 per second; 0 without AVX512-VNNI
  double bandwidth_bytes = 0;   // sustained triad bytes/s
  int threads = 0;              // threads both ran with
  int vector_lanes = 0;         // fp32 lanes of the FMA kernel (16, 8 or 4)
  int64_t triad_bytes = 0;      // bytes of one triad array
  // The compute peak for arithmetic on `dtype` inputs: the bf16 or int8 dot-product peak
  // where measured, else the fp32 one (f16 is computed in f32 on x86).
  double peak_for(subgraphs::DType dtype) const;
  // Roofline time of `flops` and `bytes` in nanoseconds, computing on `dtype` inputs.
  double time_ns(double flops, double bytes, subgraphs::DType dtype = subgraphs::DType::kF32) const;
  // "peak 304 GFLOP/s (2 threads, 16 lanes), triad 30.5 GB/s (3 x 256 MiB)".
  std::string describe() const;
};

// The roofline time of one run of `sg` in nanoseconds: its FLOPs against the peak of the
// type its (first) input has (bf16 and 8-bit subgraphs are held to their dot-product
// instructions), its compulsory bytes against the bandwidth.
double subgraph_roofline_ns(const Roofline& roofline, const subgraphs::Subgraph& sg);
// Its two limits apart (ns): the FLOPs at that peak, the compulsory bytes at the bandwidth.
double subgraph_compute_ns(const Roofline& roofline, const subgraphs::Subgraph& sg);
double subgraph_memory_ns(const Roofline& roofline, const subgraphs::Subgraph& sg);

// Runs both microbenchmarks (a few seconds). Always positive and finite results.
Roofline measure_roofline(const RooflineOptions& options);

}  // namespace ktune::bench
