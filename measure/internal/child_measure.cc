#include "measure/internal/child_measure.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "measure/internal/aot_allocator.h"
#include "measure/internal/input_cover.h"
#include "subgraphs/compare.h"

namespace ktune::measure::internal {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

MeasureResult measure_in_child(const CompiledKernel& kernel, const WorkloadData& workload,
                               const subgraphs::Subgraph& subgraph, const TimingProtocol& protocol,
                               int threads, SetNumThreadsFn set_num_threads, bool aot_allocation) {
  MeasureResult result;
  result.threads = threads;
  // The pool reads HL_NUM_THREADS when it starts; set_num_threads covers a pool that the
  // runtime already initialized.
  setenv("HL_NUM_THREADS", std::to_string(threads).c_str(), 1);
  if (set_num_threads) set_num_threads(threads);

  // Binding buffers to the pipeline's parameters changes only this child's memory.
  const subgraphs::BuiltPipeline& built = kernel.built;
  std::vector<Halide::Buffer<>> outputs;
  for (const subgraphs::TensorInfo& info : subgraph.outputs()) outputs.push_back(subgraphs::make_halide_buffer(info));
  Halide::Realization realization(outputs);
  Halide::Pipeline pipeline = built.pipeline;
  if (aot_allocation) use_aot_allocation(pipeline);
  // On a GPU target the call returns once the kernels are queued: wait for the device, so
  // each timed run covers the kernels' execution (inputs are copied to the device by the
  // first, untimed run and stay there).
  const auto run_once = [&] {
    pipeline.realize(realization, kernel.target);
    for (Halide::Buffer<>& b : outputs) {
      if (b.device_sync() != 0) throw std::runtime_error("waiting for the device failed");
    }
  };

  try {
    bind_inputs_covering_reads(built, workload.inputs, realization, kernel.target);
    const auto check_start = std::chrono::steady_clock::now();
    run_once();
    const double checked_run_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - check_start).count();
    std::vector<subgraphs::Tensor> got;
    for (size_t i = 0; i < outputs.size(); ++i) {
      outputs[i].copy_to_host();  // no-op unless the output was written on a GPU
      got.push_back(subgraphs::tensor_from_buffer(outputs[i]));
    }
    const subgraphs::Comparison cmp = subgraphs::compare_outputs(got, workload.reference, subgraph.outputs());
    result.max_error = cmp.max_error;
    if (!cmp.passed()) {
      result.status = MeasureStatus::kWrongResult;
      result.message = cmp.describe();
      return result;
    }
    const TimingSummary s = summarize(run_timing_protocol(protocol, run_once, checked_run_ns));
    result.median_ns = s.median_ns;
    result.min_ns = s.min_ns;
    result.spread_ns = s.spread_ns;
    result.repeats = s.repeats;
  } catch (const Halide::Error& e) {
    // Pipeline::realize turns the messages the JIT runtime's error handler collected
    // (halide_error) into this exception, so e.what() is Halide's own text.
    result.status = MeasureStatus::kRuntimeError;
    result.message = trimmed(e.what());
  } catch (const std::exception& e) {
    // Anything else (an allocation failure, say) is still reported with its message.
    result.status = MeasureStatus::kRuntimeError;
    result.message = trimmed(e.what());
  }
  return result;
}

}  // namespace ktune::measure::internal
