#include "targets/aot_library.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/error.h"
#include "targets/c_identifier.h"

namespace ktune::targets {
namespace {

namespace fs = std::filesystem;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

Halide::Target parse_target(const std::string& text) {
  if (!Halide::Target::validate_target_string(text)) {
    throw UserError("not a Halide target string: \"" + text + "\" (expected e.g. x86-64-linux-avx2-fma-sse41)");
  }
  return Halide::Target(text);
}

void check_names(const std::vector<AotKernel>& kernels) {
  std::set<std::string> seen;
  for (const AotKernel& k : kernels) {
    if (!is_c_identifier(k.function_name)) {
      throw UserError("exported function name \"" + k.function_name + "\" is not a C identifier");
    }
    if (!seen.insert(k.function_name).second) {
      throw UserError("exported function name \"" + k.function_name + "\" is used twice");
    }
  }
}

}  // namespace

std::vector<Halide::Argument> kernel_arguments(const std::vector<Halide::Internal::Parameter>& inputs,
                                               const std::vector<Halide::Internal::Parameter>& scalars) {
  std::vector<Halide::Argument> args;
  for (const Halide::Internal::Parameter& p : inputs) {
    args.emplace_back(p.name(), Halide::Argument::InputBuffer, p.type(), p.dimensions(), Halide::ArgumentEstimates{});
  }
  for (const Halide::Internal::Parameter& p : scalars) {
    args.emplace_back(p.name(), Halide::Argument::InputScalar, p.type(), 0, Halide::ArgumentEstimates{});
  }
  return args;
}

AotLibraryStats write_static_library(const std::vector<AotKernel>& kernels, const std::string& halide_target,
                                     const std::string& archive_path, const std::string& work_dir, int threads) {
  const auto start = std::chrono::steady_clock::now();
  const Halide::Target target = parse_target(halide_target);
  // Kernels carry no runtime; the one standalone runtime below serves them all.
  const Halide::Target kernel_target = target.with_feature(Halide::Target::NoRuntime);
  check_names(kernels);
  fs::create_directories(work_dir);

  AotLibraryStats stats;
  stats.kernels = static_cast<int>(kernels.size());
  std::vector<std::string> objects(kernels.size());
  std::vector<double> compile_ms(kernels.size(), 0);
  std::vector<std::exception_ptr> errors(kernels.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < kernels.size(); i = next++) {
      const AotKernel& k = kernels[i];
      // "k_" keeps a kernel named like the runtime from overwriting its object.
      objects[i] = (fs::path(work_dir) / ("k_" + k.function_name + ".o")).string();
      const auto t0 = std::chrono::steady_clock::now();
      try {
        Halide::Pipeline pipeline = k.pipeline;
        pipeline.compile_to_object(objects[i], k.arguments, k.function_name, kernel_target);
      } catch (const Halide::Error& e) {
        errors[i] = std::make_exception_ptr(
            std::runtime_error("Halide could not compile " + k.function_name + ": " + e.what()));
      } catch (...) {
        errors[i] = std::current_exception();
      }
      compile_ms[i] = ms_since(t0);
    }
  };
  const int n_threads = std::max(1, std::min<int>(threads, static_cast<int>(kernels.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n_threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (double ms : compile_ms) stats.kernels_cpu_ms += ms;

  const auto t_runtime = std::chrono::steady_clock::now();
  const std::string runtime_object = (fs::path(work_dir) / "halide_runtime.o").string();
  Halide::compile_standalone_runtime(runtime_object, target);
  stats.runtime_ms = ms_since(t_runtime);

  objects.push_back(runtime_object);
  if (const fs::path parent = fs::path(archive_path).parent_path(); !parent.empty()) fs::create_directories(parent);
  fs::remove(archive_path);
  Halide::create_static_library(objects, target, archive_path, /*deterministic=*/true);
  stats.archive_bytes = static_cast<int64_t>(fs::file_size(archive_path));
  stats.objects = objects;
  stats.wall_ms = ms_since(start);
  return stats;
}

std::vector<std::string> halide_runtime_headers() {
  const fs::path dir = KTUNE_HALIDE_RUNTIME_INCLUDE_DIR;
  return {(dir / "HalideRuntime.h").string(), (dir / "HalideBuffer.h").string()};
}

}  // namespace ktune::targets
