// Entry points: build_candidates (the batch), late_builds_in_flight and
// wait_for_late_builds (abandoned compiles), jit_target_from_string, jit_target_for.
// Each candidate: subgraph->build() on an arena thread, then apply + compile_jit on a
// helper thread the arena thread waits for with a deadline (see builder.h).
#include "measure/builder.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/error.h"
#include "common/stop_request.h"
#include "measure/compiled_kernel.h"
#include "measure/usable_cores.h"
#include "subgraphs/subgraph.h"
#include "targets/host_target.h"

namespace ktune::measure {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::atomic<int> g_late_builds{0};
std::mutex g_late_mutex;
std::condition_variable g_late_done;

// Scheduling and compiling one candidate, shared by the waiting arena thread and the
// helper thread so that either may outlive the other.
struct CompileJob {
  subgraphs::BuiltPipeline built;                                   // fresh pipeline
  std::function<void(const subgraphs::BuiltPipeline&)> apply;       // the schedule
  Halide::Target target;                                            // compile target
  std::mutex mutex;                 // guards the fields below
  std::condition_variable finished_cv;
  bool finished = false;            // apply and compile_jit returned or threw
  bool abandoned = false;           // the waiter gave up; the result is discarded
  MeasureStatus status = MeasureStatus::kOk;
  std::string message;              // Halide's message when status is not kOk
};

// apply + compile_jit, mapping exceptions to statuses (rejected for a CompileError).
void run_compile(CompileJob& job) {
  MeasureStatus status = MeasureStatus::kOk;
  std::string message;
  try {
    if (job.apply) job.apply(job.built);
    Halide::Pipeline pipeline = job.built.pipeline;
    pipeline.compile_jit(job.target);
  } catch (const Halide::CompileError& e) {
    status = MeasureStatus::kRejected;
    message = e.what();
  } catch (const Halide::Error& e) {
    status = MeasureStatus::kBuildError;
    message = e.what();
  } catch (const std::exception& e) {
    status = MeasureStatus::kBuildError;
    message = e.what();
  }
  std::lock_guard<std::mutex> lock(job.mutex);
  job.status = status;
  job.message = std::move(message);
  job.finished = true;
  if (job.abandoned) {
    // Nobody waits for this job any more: drop the compiled code now, then report.
    job.built = {};
    std::lock_guard<std::mutex> late_lock(g_late_mutex);
    g_late_builds.fetch_sub(1);
    g_late_done.notify_all();
  }
  job.finished_cv.notify_all();
}

void trim_message(std::string& message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
}

// True once `stop` (BuildOptions::stop, null: never) asks for a stop.
bool stopping(const std::atomic<int>* stop) { return stop && stop->load() != 0; }

// How often a thread waiting for a compile looks for a stop request.
constexpr std::chrono::milliseconds kStopCheck{50};

// Leaves `job` to finish in the background (its code is discarded when it does).
void abandon(const std::shared_ptr<CompileJob>& job, std::unique_lock<std::mutex>& lock, std::thread& helper) {
  job->abandoned = true;
  g_late_builds.fetch_add(1);
  lock.unlock();
  helper.detach();
}

// Runs `job`'s compile on a helper thread and waits for it until `deadline` or a stop;
// false when it was abandoned.
bool compile_with_deadline(const std::shared_ptr<CompileJob>& job, Clock::time_point deadline,
                           const std::atomic<int>* stop, bool& stopped) {
  std::thread helper([job] { run_compile(*job); });
  std::unique_lock<std::mutex> lock(job->mutex);
  for (;;) {
    const Clock::time_point until = std::min(deadline, Clock::now() + kStopCheck);
    if (job->finished_cv.wait_until(lock, until, [&] { return job->finished; })) break;
    stopped = stopping(stop);
    if (stopped || Clock::now() >= deadline) {
      abandon(job, lock, helper);
      return false;
    }
  }
  lock.unlock();
  helper.join();
  return true;
}

BuiltCandidate build_one(const Candidate& candidate, const Halide::Target& target, double timeout_ms,
                         const std::atomic<int>* stop) {
  BuiltCandidate out;
  out.candidate = candidate;
  const Clock::time_point start = Clock::now();
  auto job = std::make_shared<CompileJob>();
  job->apply = candidate.apply;
  job->target = target;
  try {
    if (!candidate.subgraph) throw std::runtime_error("candidate has no subgraph");
    job->built = candidate.build ? candidate.build() : candidate.subgraph->build();
  } catch (const std::exception& e) {
    out.build.status = MeasureStatus::kBuildError;
    out.build.message = std::string("building the algorithm failed: ") + e.what();
    out.build.build_ms = ms_since(start);
    return out;
  }

  if (timeout_ms <= 0) {
    run_compile(*job);
  } else {
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double, std::milli>(timeout_ms));
    bool stopped = false;
    if (!compile_with_deadline(job, deadline, stop, stopped)) {
      out.build.build_ms = ms_since(start);
      out.skipped = stopped;  // a stop gives no verdict on the candidate
      out.build.status = MeasureStatus::kBuildTimeout;
      out.build.message = stopped ? "compilation abandoned: the run was asked to stop"
                                  : "compilation did not finish within " + std::to_string(static_cast<int64_t>(timeout_ms)) +
                                        " ms; abandoned (it finishes in the background and its code is discarded)";
      return out;
    }
  }
  out.build.build_ms = ms_since(start);
  out.build.status = job->status;
  out.build.message = job->message;
  trim_message(out.build.message);
  if (job->status == MeasureStatus::kOk) {
    auto kernel = std::make_shared<CompiledKernel>();
    kernel->built = std::move(job->built);
    kernel->target = target;
    out.kernel = std::move(kernel);
  }
  return out;
}

// Initializes LLVM and the JIT shared runtime once, so that the first candidates of the
// first batch do not pay for it (and do not race to do it).
void warm_up_jit(const Halide::Target& target) {
  static std::once_flag once;
  std::call_once(once, [&] {
    Halide::Func f("ktune_warm_up");
    Halide::Var x("x");
    f(x) = x;
    f.compile_jit(target);
  });
}

}  // namespace

Halide::Target jit_target_from_string(const std::string& text) {
  if (text.empty()) return Halide::Target(targets::jit_halide_target());
  if (!Halide::Target::validate_target_string(text)) {
    throw UserError(format_user_error("", "target", "expected a Halide target string such as "
                                                    "\"host\" or \"x86-64-linux-avx2\", found \"" + text + "\""));
  }
  return Halide::Target(text);
}

std::string jit_target_for(const std::string& device_target) {
  if (device_target.empty()) return "";
  const Halide::Target device = jit_target_from_string(device_target);
  if (!device.has_gpu_feature()) return "";
  // The device's GPU API and capability on this machine's host target.
  using F = Halide::Target::Feature;
  Halide::Target jit(targets::jit_halide_target());
  for (F f : {F::CUDA, F::CUDACapability30, F::CUDACapability32, F::CUDACapability35, F::CUDACapability50,
              F::CUDACapability61, F::CUDACapability70, F::CUDACapability75, F::CUDACapability80,
              F::CUDACapability86, F::OpenCL, F::Metal, F::D3D12Compute}) {
    if (device.has_feature(f)) jit = jit.with_feature(f);
  }
  return jit.to_string();
}

BuildBatch build_candidates(const std::vector<Candidate>& candidates, const BuildOptions& options) {
  const Halide::Target target = jit_target_from_string(options.target);
  warm_up_jit(target);
  BuildBatch batch;
  batch.candidates.resize(candidates.size());
  const int threads = options.threads > 0 ? options.threads : usable_cores();
  const Clock::time_point start = Clock::now();
  tbb::task_arena arena(threads);
  // Candidates start in their order (compile times differ by 100x between schedules, so
  // each worker takes the next one when it is free): when start_before cuts a batch short,
  // the first candidates are the ones built.
  std::atomic<size_t> next{0};
  arena.execute([&] {
    tbb::parallel_for(0, threads, [&](int) {
      for (size_t i = next++; i < candidates.size(); i = next++) {
        if ((options.start_before && Clock::now() >= *options.start_before) || stopping(options.stop)) {
          batch.candidates[i].candidate = candidates[i];
          batch.candidates[i].skipped = true;
        } else {
          batch.candidates[i] = build_one(candidates[i], target, options.timeout_ms, options.stop);
        }
      }
    });
  });
  BuildStats& stats = batch.stats;
  stats.wall_ms = ms_since(start);
  stats.threads = threads;
  for (const BuiltCandidate& b : batch.candidates) {
    if (b.skipped) {
      ++stats.skipped;
      continue;
    }
    ++stats.candidates;
    stats.sum_build_ms += b.build.build_ms;
    switch (b.build.status) {
      case MeasureStatus::kOk: ++stats.built; break;
      case MeasureStatus::kRejected: ++stats.rejected; break;
      case MeasureStatus::kBuildTimeout: ++stats.timeouts; break;
      default: ++stats.errors; break;
    }
  }
  return batch;
}

int late_builds_in_flight() { return g_late_builds.load(); }

bool wait_for_late_builds(double timeout_ms) {
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double, std::milli>(timeout_ms));
  std::unique_lock<std::mutex> lock(g_late_mutex);
  while (g_late_builds.load() != 0 && !stop_requested()) {
    const Clock::time_point until = std::min(deadline, Clock::now() + kStopCheck);
    g_late_done.wait_until(lock, until, [] { return g_late_builds.load() == 0; });
    if (Clock::now() >= deadline) break;
  }
  return g_late_builds.load() == 0;
}

}  // namespace ktune::measure
