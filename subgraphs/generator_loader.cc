#include "subgraphs/generator_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "common/child_process.h"
#include "common/error.h"
#include "subgraphs/built_pipeline.h"
#include "targets/host_target.h"

namespace ktune::subgraphs {
namespace {

namespace HI = Halide::Internal;

constexpr const char* kCaptureScheduler = "ktune_capture";

// Thrown by the capturing autoscheduler once it holds the unscheduled pipeline, so that
// the generator does not go on to lower it.
struct PipelineCaptured {
  Halide::Pipeline pipeline;
};

void register_capture_scheduler() {
  static std::once_flag once;
  std::call_once(once, [] {
    Halide::Pipeline::add_autoscheduler(
        kCaptureScheduler, [](const Halide::Pipeline& p, const Halide::Target&,
                              const Halide::MachineParams&, Halide::AutoSchedulerResults*) {
          throw PipelineCaptured{p};
        });
  });
}

// Libraries loaded by this process and the generators each registered.
std::map<std::string, std::vector<std::string>>& loaded_libraries() {
  static std::map<std::string, std::vector<std::string>> libs;
  return libs;
}

std::mutex& loader_mutex() {
  static std::mutex m;
  return m;
}

// Loads `library` in a child process and reports what it registered, or why it failed.
// Returns "OK name1 name2 ..." or "ERR message".
std::string probe_in_child(const std::string& library) {
  constexpr double kTimeoutMs = 60000;
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        const std::vector<std::string> before = HI::GeneratorRegistry::enumerate();
        std::string report;
        if (dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
          const char* err = dlerror();
          report = "ERR " + std::string(err ? err : "unknown dlopen error");
        } else {
          report = "OK";
          for (const std::string& name : HI::GeneratorRegistry::enumerate()) {
            if (std::find(before.begin(), before.end(), name) == before.end()) report += " " + name;
          }
        }
        write_all(fd, report.data(), report.size());
      },
      kTimeoutMs);
  if (child.signal && !child.timed_out) {
    return "ERR loading the library aborted the process (" + std::string(strsignal(child.signal)) +
           "); this happens when it registers a generator name that is already registered "
           "(by itself twice, or by a library loaded before it)";
  }
  const std::string why = describe_abnormal_end(child, "loading the library", kTimeoutMs);
  if (!why.empty()) return "ERR " + why;
  if (child.output.empty()) return "ERR loading the library ended without an answer";
  return child.output;
}

// Builds the generator and reads its shapes in a child process first, so that a Generator
// that crashes or hangs while building is an error message, not the end of ktune.
void probe_generator_build(const GeneratorRef& ref, const std::map<std::string, std::string>& params,
                           const PipelineSubgraph::ScalarValues& scalars, const InputRanges& ranges) {
  constexpr double kTimeoutMs = 120000;
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        std::string report = "OK";
        try {
          GeneratorSubgraph built(ref, params, scalars, ranges);
        } catch (const std::exception& e) {
          report = std::string("ERR") + e.what();
        }
        write_all(fd, report.data(), report.size());
      },
      kTimeoutMs);
  const std::string why = describe_abnormal_end(child, "building generator " + ref.generator, kTimeoutMs);
  if (!why.empty()) throw UserError(format_user_error(ref.library, "", why));
  if (child.output.rfind("ERR", 0) == 0) throw UserError(child.output.substr(3));
  if (child.output != "OK") {
    throw UserError(format_user_error(ref.library, "", "building generator " + ref.generator + " ended without an answer"));
  }
}

[[noreturn]] void fail(const std::string& library, const std::string& message) {
  throw UserError(format_user_error(library, "", message));
}

}  // namespace

GeneratorRef parse_generator_ref(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    throw UserError(format_user_error("--generator", "", "expected LIB:NAME (a shared library and a generator name), found \"" + text + "\""));
  }
  return GeneratorRef{text.substr(0, colon), text.substr(colon + 1)};
}

std::vector<std::string> load_generator_library(const std::string& library) {
  std::lock_guard<std::mutex> lock(loader_mutex());
  auto& libs = loaded_libraries();
  char resolved[PATH_MAX];
  struct stat st;
  if (stat(library.c_str(), &st) != 0) fail(library, "generator library not found");
  if (!S_ISREG(st.st_mode)) fail(library, "not a regular file (expected a shared library)");
  const std::string key = realpath(library.c_str(), resolved) ? resolved : library;
  if (auto it = libs.find(key); it != libs.end()) return it->second;

  const std::string report = probe_in_child(key);
  if (report.rfind("ERR ", 0) == 0) {
    std::string msg = report.substr(4);
    if (msg.find("invalid ELF header") != std::string::npos || msg.find("file too short") != std::string::npos) {
      msg = "not a shared library (" + msg + ")";
    }
    fail(library, "cannot load generator library: " + msg);
  }
  std::vector<std::string> names;
  size_t pos = 3;
  while (pos < report.size()) {
    const size_t end = report.find(' ', pos);
    names.push_back(report.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (names.empty()) {
    fail(library, "the library registers no Halide generator (use HALIDE_REGISTER_GENERATOR and link it to libHalide, without GenGen)");
  }
  if (dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* err = dlerror();
    fail(library, std::string("cannot load generator library: ") + (err ? err : "unknown error"));
  }
  libs[key] = names;
  return names;
}

GeneratorSubgraph::GeneratorSubgraph(const GeneratorRef& ref, std::map<std::string, std::string> params,
                                     const ScalarValues& scalar_values, const InputRanges& input_ranges)
    : ref_(ref), params_(std::move(params)), scalar_values_(scalar_values), input_ranges_(input_ranges) {
  const std::vector<std::string> names = load_generator_library(ref.library);
  if (std::find(names.begin(), names.end(), ref.generator) == names.end()) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    fail(ref.library, "no generator named \"" + ref.generator + "\" (this library registers: " + list + ")");
  }
  init(ref.generator, [this] { return build_generator_pipeline(); }, ref.library, "generator " + ref.generator,
       scalar_values, input_ranges);
}

Halide::Pipeline GeneratorSubgraph::build_generator_pipeline(bool own_schedule) const {
  register_capture_scheduler();
  Halide::Pipeline::set_default_autoscheduler_name(kCaptureScheduler);
  const Halide::Target target(targets::host_halide_target());
  std::unique_ptr<HI::GeneratorBase> gen =
      HI::GeneratorRegistry::create(ref_.generator, Halide::GeneratorContext(target, !own_schedule));
  try {
    HI::GeneratorParamsMap values;
    for (const auto& [k, v] : params_) values[k] = HI::StringOrLoopLevel(v);
    gen->set_generator_param_values(values);
    gen->build_module(ref_.generator);
    // Without auto_schedule the Generator schedules itself and build_module returns.
    if (own_schedule) return gen->get_pipeline();
  } catch (const PipelineCaptured& captured) {
    return captured.pipeline;
  } catch (const Halide::Error& e) {
    fail(ref_.library, "generator " + ref_.generator + " failed to build: " + e.what());
  }
  fail(ref_.library, "generator " + ref_.generator + " did not hand its pipeline to ktune");
}

BuiltPipeline GeneratorSubgraph::build_with_own_schedule() const {
  BuiltPipeline built = built_from_pipeline(build_generator_pipeline(true));
  bind_scalars(built, scalars());
  return built;
}

std::unique_ptr<GeneratorSubgraph> load_generator_subgraph(
    const std::string& ref, const std::map<std::string, std::string>& params,
    const PipelineSubgraph::ScalarValues& scalar_values, const InputRanges& input_ranges) {
  const GeneratorRef parsed = parse_generator_ref(ref);
  load_generator_library(parsed.library);  // loaded and checked in a child first
  probe_generator_build(parsed, params, scalar_values, input_ranges);
  return std::make_unique<GeneratorSubgraph>(parsed, params, scalar_values, input_ranges);
}

}  // namespace ktune::subgraphs
