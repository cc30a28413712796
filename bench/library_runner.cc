#include "bench/library_runner.h"

#include <signal.h>

#include <cstring>
#include <stdexcept>

#include "common/child_process.h"
#include "measure/report_wire.h"
#include "subgraphs/compare.h"

namespace ktune::bench {

measure::MeasureResult verify_and_time(const std::function<void()>& run, const subgraphs::Tensor& output,
                                       const subgraphs::TensorInfo& output_info, const subgraphs::Tensor& reference,
                                       const measure::TimingProtocol& protocol) {
  measure::MeasureResult r;
  try {
    run();
    // A library rounds an integer output from its own float arithmetic (requantizing), in
    // another order than the reference: allow the rare flips by one that compare.h allows.
    subgraphs::TensorInfo info = output_info;
    info.rounded_from_float = !subgraphs::is_float(info.dtype);
    const subgraphs::Comparison cmp = subgraphs::compare_outputs({output}, {reference}, {info});
    r.max_error = cmp.max_error;
    if (!cmp.passed()) {
      r.status = measure::MeasureStatus::kWrongResult;
      r.message = cmp.describe();
      return r;
    }
    const measure::TimingSummary s = measure::summarize(measure::run_timing_protocol(protocol, run));
    r.median_ns = s.median_ns;
    r.min_ns = s.min_ns;
    r.spread_ns = s.spread_ns;
    r.repeats = s.repeats;
  } catch (const std::exception& e) {
    r.status = measure::MeasureStatus::kRuntimeError;
    r.message = e.what();
  }
  return r;
}

measure::MeasureResult run_library_method(const LibraryMethod& method, const BenchInputs& data, int threads,
                                          const measure::TimingProtocol& protocol, double timeout_ms) {
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        measure::MeasureResult r;
        subgraphs::Tensor output(data.output.shape, data.output.dtype);
        try {
          std::unique_ptr<LibraryKernel> kernel = method.make(threads);
          r = verify_and_time([&] { kernel->run(data.inputs, output.bytes.data()); }, output, data.output, *data.reference,
                              protocol);
        } catch (const std::exception& e) {
          r.status = measure::MeasureStatus::kRuntimeError;
          r.message = e.what();
        }
        r.threads = threads;
        const std::string bytes = measure::encode_report(r);
        write_all(fd, bytes.data(), bytes.size());
      },
      timeout_ms);
  std::optional<measure::MeasureResult> reported;
  if (!child.timed_out && child.signal == 0 && child.exit_code == 0) reported = measure::decode_report(child.output);
  measure::MeasureResult r;
  if (reported) {
    r = *reported;
  } else if (!child.error.empty()) {
    r.status = measure::MeasureStatus::kRuntimeError;
    r.message = child.error;
  } else if (child.timed_out) {
    r.status = measure::MeasureStatus::kRunTimeout;
    r.message = "killed after " + std::to_string(static_cast<int64_t>(child.wall_ms)) + " ms";
  } else if (child.signal != 0) {
    r.status = measure::MeasureStatus::kCrash;
    r.signal = child.signal;
    r.message = strsignal(child.signal);
  } else {
    r.status = measure::MeasureStatus::kRuntimeError;
    r.message = "exited with code " + std::to_string(child.exit_code) + " without a report";
  }
  r.threads = threads;
  r.run_wall_ms = child.wall_ms;
  return r;
}

}  // namespace ktune::bench
