#include "bench/halide_autoschedulers.h"

#include <Halide.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <mutex>

#include "common/child_process.h"
#include "subgraphs/built_pipeline.h"
#include "targets/host_target.h"

namespace ktune::bench {

const char* default_plugin_dir() { return KTUNE_HALIDE_PLUGIN_DIR; }

namespace {

Halide::Target target_of(const std::string& text) {
  return Halide::Target(text.empty() ? targets::jit_halide_target() : text);
}

Halide::MachineParams halide_params(const AutoschedulerParams& p) {
  return Halide::MachineParams(p.parallelism, static_cast<uint64_t>(p.llc_bytes), static_cast<float>(p.balance));
}

}  // namespace

std::string AutoschedulerParams::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%d,%lld,%g", parallelism, static_cast<long long>(llc_bytes), balance);
  return buf;
}

AutoschedulerParams machine_params_for(const targets::Device& device, int threads) {
  AutoschedulerParams p;
  p.parallelism = std::max(1, threads);
  p.llc_bytes = device.llc_bytes > 0 ? device.llc_bytes : int64_t{16} << 20;
  p.balance = 40;
  return p;
}

std::string load_autoscheduler(const std::string& name, const std::string& plugin_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> loaded;  // plugin path -> error ("" = loaded)
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string path = plugin_dir + "/libautoschedule_" + lower + ".so";
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(path);
  if (it != loaded.end()) return it->second;
  std::string error;
  if (access(path.c_str(), R_OK) != 0) {
    error = "plugin " + path + " not found (install libhalide14-0-dev)";
  } else {
    try {
      Halide::load_plugin(path);
    } catch (const std::exception& e) {
      error = "loading " + path + ": " + e.what();
    }
  }
  loaded[path] = error;
  return error;
}

ProbeResult probe_autoscheduler(const subgraphs::Subgraph& subgraph, const std::string& name,
                                const AutoschedulerParams& params, const std::string& halide_target,
                                double timeout_ms) {
  const Halide::Target target = target_of(halide_target);
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        const int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        std::string answer = "ok";
        try {
          subgraphs::BuiltPipeline built = subgraph.build();
          built.pipeline.auto_schedule(name, target, halide_params(params));
          built.pipeline.compile_jit(target);
        } catch (const std::exception& e) {
          answer = std::string("ERR") + e.what();
        }
        write_all(fd, answer.data(), answer.size());
      },
      timeout_ms);
  ProbeResult r;
  r.wall_ms = child.wall_ms;
  if (child.timed_out) {
    r.status = "timeout";
    r.message = name + " did not schedule and compile within " + std::to_string(static_cast<int64_t>(timeout_ms / 1000)) + " s";
  } else if (child.signal != 0) {
    r.status = "crash";
    r.message = name + " crashed while scheduling or compiling: " + strsignal(child.signal);
  } else if (child.output == "ok") {
    r.status = "ok";
  } else {
    r.status = "failed";
    std::string why = child.output.rfind("ERR", 0) == 0 ? child.output.substr(3) : child.output;
    if (!child.error.empty()) why = child.error;
    if (why.empty()) why = "exited with code " + std::to_string(child.exit_code);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    r.message = name + " failed: " + why;
  }
  return r;
}

measure::Candidate autoscheduler_candidate(const subgraphs::Subgraph& subgraph, const std::string& name,
                                           const AutoschedulerParams& params, const std::string& halide_target) {
  measure::Candidate c;
  c.subgraph = &subgraph;
  c.schedule_hash = name;
  c.label = name;
  c.apply = [name, params, halide_target](const subgraphs::BuiltPipeline& built) {
    Halide::Pipeline pipeline = built.pipeline;
    pipeline.auto_schedule(name, target_of(halide_target), halide_params(params));
  };
  return c;
}

QuietStderr::QuietStderr() {
  std::fflush(stderr);
  saved_ = dup(STDERR_FILENO);
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDERR_FILENO);
    close(devnull);
  }
}

QuietStderr::~QuietStderr() {
  if (saved_ < 0) return;
  std::fflush(stderr);
  dup2(saved_, STDERR_FILENO);
  close(saved_);
}

}  // namespace ktune::bench
