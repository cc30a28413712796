// Where ktune replaces one of libHalide's internal functions (llvm_target_options.cc,
// f16c_conversions.cc), its definition in the executable (or a preloaded library) takes
// the place of Halide's for every caller in libHalide, which calls it through the PLT; the
// replacement calls Halide's own, the next definition in the search order, found here.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace ktune::targets {

// Halide's definition of the function with C++ symbol `mangled_name`, as a `Function`
// pointer. Aborts with the name when libHalide lacks it (another Halide version): a
// replacement that cannot reach the original must not guess.
template <typename Function>
Function halide_next_definition(const char* mangled_name) {
  void* found = dlsym(RTLD_NEXT, mangled_name);
  if (!found) {
    std::fprintf(stderr, "ktune: libHalide lacks %s: %s\n", mangled_name, dlerror());
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}

}  // namespace ktune::targets
