// A Func computed at root allocates its whole region; Halide refuses, at run time, a buffer
// above 2^31 - 1 bytes (without the large_buffers target feature, which ktune's schedules do
// not ask for). Such a schedule is rejected before it is built: a large intermediate read
// sparsely (a strided search window) must be inlined or computed at a loop of its reader.
#include <algorithm>
#include <cstdio>

#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

constexpr double kMaxBufferBytes = 2147483647.0;

double region_bytes(const FuncAnalysis& fa) {
  double bytes = fa.element_bytes;
  for (int64_t e : fa.extents) bytes *= static_cast<double>(std::max<int64_t>(1, e));
  return bytes;
}

class BufferSizeValidator : public Validator {
 public:
  std::string_view name() const override { return "buffer_size"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& fs : s.funcs) {
      if (fs.compute.kind != ComputeLocation::Kind::kRoot) continue;
      const FuncAnalysis* fa = a.find(fs.func);
      if (!fa || fa->is_output) continue;  // an output is the caller's buffer
      const double bytes = region_bytes(*fa);
      if (bytes > kMaxBufferBytes) {
        char text[160];
        std::snprintf(text, sizeof(text), "computed at root it needs a buffer of %.2f GB, above Halide's 2 GB limit",
                      bytes / 1e9);
        return fs.func + ": " + text + "; inline it or compute it at a loop of its consumer";
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_buffer_size_validator() { return std::make_unique<BufferSizeValidator>(); }

}  // namespace ktune::scheduler
