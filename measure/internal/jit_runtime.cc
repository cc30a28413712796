#include "measure/internal/jit_runtime.h"

#include <string>

namespace ktune::measure::internal {
namespace {

void* find_runtime_symbol(const Halide::Target& target, const std::string& name) {
  namespace HI = Halide::Internal;
  for (const HI::JITModule& module : HI::JITSharedRuntime::get(nullptr, target, /*create=*/false)) {
    const auto it = module.exports().find(name);
    if (it != module.exports().end() && it->second.address) return it->second.address;
  }
  return nullptr;
}

}  // namespace

void shutdown_jit_thread_pool(const Halide::Target& target) {
  if (void* fn = find_runtime_symbol(target, "halide_shutdown_thread_pool")) {
    reinterpret_cast<void (*)()>(fn)();
  }
}

SetNumThreadsFn find_set_num_threads(const Halide::Target& target) {
  return reinterpret_cast<SetNumThreadsFn>(find_runtime_symbol(target, "halide_set_num_threads"));
}

}  // namespace ktune::measure::internal
