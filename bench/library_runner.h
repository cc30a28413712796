// Measuring a library baseline with the measurement layer's protocol: in a forked child
// (a library that crashes or hangs is a row, not the end of the bench), on the same seeded
// inputs as the Halide kernels, checked against the same reference with the same tolerance
// (subgraphs/compare.h), then timed with the same TimingProtocol.
#pragma once

#include <functional>
#include <vector>

#include "bench/library_kernel.h"
#include "measure/measure_result.h"
#include "measure/timing_protocol.h"
#include "subgraphs/tensor.h"

namespace ktune::bench {

// The inputs every method of one subgraph sees and the reference its output must match.
struct BenchInputs {
  std::vector<const void*> inputs;      // spec order, row-major, each of its type, 128-byte aligned
  subgraphs::TensorInfo output;         // the single output's shape
  const subgraphs::Tensor* reference = nullptr;  // its reference values
};

// Runs `run` once, compares `output` (filled by run) with `reference`, and if it matches
// times `run` with `protocol`. kWrongResult (with max_error) on a mismatch, kRuntimeError
// when run throws. Runs in the calling process.
measure::MeasureResult verify_and_time(const std::function<void()>& run, const subgraphs::Tensor& output,
                                       const subgraphs::TensorInfo& output_info, const subgraphs::Tensor& reference,
                                       const measure::TimingProtocol& protocol);

// Makes `method`'s kernel with `threads` threads in a forked child, verifies and times it
// there, and returns the result (kCrash, kRunTimeout after `timeout_ms`, kRuntimeError for
// an exception while making or running it).
measure::MeasureResult run_library_method(const LibraryMethod& method, const BenchInputs& data, int threads,
                                          const measure::TimingProtocol& protocol, double timeout_ms);

}  // namespace ktune::bench
