// ktune's replacement for Halide::Internal::get_target_options (see cpu_codegen.h). Halide
// 14 calls it through the PLT whenever it makes an LLVM target machine, for JIT and AOT
// alike, so a definition in the executable takes its place; this one calls Halide's own
// (the next definition), then drops the LLVM features the CPU model implies and this CPU
// lacks and, without AVX512-FP16, takes the Cannon Lake model (llvm_cpu_model). Linked
// as an object into every executable that links ktune_targets, and built as
// libktune_cpu_codegen.so to preload into a Generator that compiles for ktune's target.
#include <dlfcn.h>

#include <string>

#include "targets/cpu_codegen.h"
#include "targets/halide_next_definition.h"

namespace llvm {
class Module;
class TargetOptions;
}  // namespace llvm

namespace {

constexpr const char* kHalideGetTargetOptions =
    "_ZN6Halide8Internal18get_target_optionsERKN4llvm6ModuleERNS1_13TargetOptionsERNSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEESD_";

using GetTargetOptions = void (*)(const llvm::Module&, llvm::TargetOptions&, std::string&, std::string&);

bool all_features_asked() { return ktune::targets::env_flag_set("KTUNE_CODEGEN_ALL_FEATURES"); }

GetTargetOptions halide_get_target_options() {
  static const GetTargetOptions real = ktune::targets::halide_next_definition<GetTargetOptions>(kHalideGetTargetOptions);
  return real;
}

void marker_of_this_object() {}

}  // namespace

namespace Halide::Internal {

void get_target_options(const llvm::Module& module, llvm::TargetOptions& options, std::string& mcpu,
                        std::string& mattrs) {
  halide_get_target_options()(module, options, mcpu, mattrs);
  if (all_features_asked()) return;
  mattrs = ktune::targets::without_llvm_features(mattrs, ktune::targets::llvm_features_cpu_lacks(mcpu, ktune::targets::host_cpu_flags()));
  mcpu = ktune::targets::llvm_cpu_model(mcpu, ktune::targets::host_cpu_flags());
}

}  // namespace Halide::Internal

namespace ktune::targets {

bool codegen_follows_cpu() {
  if (all_features_asked()) return false;
  // Halide resolves the call to the first definition in the process: it must be this one.
  void* used = dlsym(RTLD_DEFAULT, kHalideGetTargetOptions);
  Dl_info used_info{}, this_info{};
  if (!used || !dladdr(used, &used_info) || !dladdr(reinterpret_cast<void*>(&marker_of_this_object), &this_info)) return false;
  return used_info.dli_fbase == this_info.dli_fbase;
}

}  // namespace ktune::targets
