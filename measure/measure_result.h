// The outcome of measuring one candidate: how far it got (built, ran, verified, timed) and
// its timing. Failures a search must survive (Halide rejecting a schedule, a crash, a hang,
// a wrong answer) are values of MeasureStatus, never exceptions: outcomes a run reports, not errors.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ktune::measure {

enum class MeasureStatus {
  kOk,            // built, ran, matched the reference and was timed
  kRejected,      // Halide refused the schedule (Halide::CompileError); message says why
  kBuildError,    // any other failure while scheduling or compiling
  kBuildTimeout,  // compilation did not finish within the build timeout
  kCrash,         // the isolated run died from a signal (signal is set)
  kRunTimeout,    // the isolated run was killed for taking too long
  kRuntimeError,  // the pipeline reported an error (Halide's message in message)
  kWrongResult,   // the output differs from the reference (max_error is set)
};

// "ok", "rejected", "build_error", "build_timeout", "crash", "run_timeout",
// "runtime_error", "wrong_result": the names stored in the tuning database.
std::string_view to_string(MeasureStatus status);

// The inverse of to_string; nullopt for any other text.
std::optional<MeasureStatus> measure_status_from_string(std::string_view text);

struct MeasureResult {
  // How far the candidate got; only kOk results carry timings.
  MeasureStatus status = MeasureStatus::kOk;
  // Halide's message, the signal's name or why the run was stopped; empty when ok.
  std::string message;
  // Signal that killed the run (SIGSEGV, ...) for kCrash; 0 otherwise.
  int signal = 0;
  // Largest relative error against the reference (subgraphs/compare.h); -1 when the
  // output was never compared.
  double max_error = -1;
  // Median of the timed runs, in nanoseconds; -1 when not timed.
  double median_ns = -1;
  // Fastest timed run, in nanoseconds; -1 when not timed.
  double min_ns = -1;
  // Interquartile range (75th minus 25th percentile) of the timed runs, in nanoseconds;
  // -1 when not timed.
  double spread_ns = -1;
  // Number of timed runs (warm-up and the correctness run excluded); 0 when not timed.
  int repeats = 0;
  // Threads the kernel was allowed to use (HL_NUM_THREADS in the child); 0 when not run.
  int threads = 0;
  // Wall time of scheduling plus JIT compilation, in milliseconds; -1 when not built.
  double build_ms = -1;
  // Wall time of the isolated run as the parent saw it (fork, correctness run, warm-up,
  // timed runs, exit), in milliseconds; -1 when not run.
  double run_wall_ms = -1;

  bool ok() const { return status == MeasureStatus::kOk; }
};

// One line for logs: "ok median 1.23 ms (IQR 0.01 ms, 12 runs, 2 threads)" or
// "crash: Segmentation fault".
std::string describe(const MeasureResult& result);

// Every field as JSON (status by its stored name), for `ktune measure --format json` and the
// messages of a distributed run; measure_result_from_json is the inverse and throws
// (nlohmann::json::exception, std::invalid_argument) on a missing field or an unknown status.
nlohmann::json to_json(const MeasureResult& result);
MeasureResult measure_result_from_json(const nlohmann::json& json);

}  // namespace ktune::measure
