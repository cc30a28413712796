// A library baseline as the bench runs it: a kernel object made inside the measuring child
// (libraries start thread pools and pick code paths when first used) that computes the
// subgraph's output from its inputs, plus what the parent may know without touching the
// library: the routine it calls, or why the subgraph does not map onto it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/library_match.h"

namespace ktune::bench {

class LibraryKernel {
 public:
  virtual ~LibraryKernel() = default;
  // One call: `inputs` in spec order (row-major, each of its spec type), `output` row-major
  // of the subgraph's output type, preallocated.
  virtual void run(const std::vector<const void*>& inputs, void* output) = 0;
};

struct LibraryMethod {
  std::string method;       // "openblas" or "onednn"
  std::string routine;      // what it calls, for the detail column ("cblas_sgemm + ...")
  std::string unsupported;  // non-empty: why this subgraph does not map onto the library
  // Makes the kernel with `threads` library threads; runs in the child. May throw
  // std::exception (the method is then reported as failed with its message).
  std::function<std::unique_ptr<LibraryKernel>(int threads)> make;
};

}  // namespace ktune::bench
