// Buffers Halide cannot allocate are refused before the schedule is built:
//   - a Func computed at root allocates its whole region, and Halide refuses, at run time, a
//     buffer above 2^31 - 1 bytes (without large_buffers, which ktune's schedules do not ask
//     for): a large intermediate read sparsely must be inlined or computed at a loop;
//   - a Func whose region has no bound along some dimension (read at an index that depends on
//     data, clamped on one side at most) has no buffer at all: Halide refuses to lower any
//     placement but inline.
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

std::optional<std::string> unbounded(const FuncAnalysis& fa) {
  for (size_t d = 0; d < fa.unbounded_dims.size() && d < fa.args.size(); ++d) {
    if (!fa.unbounded_dims[d]) continue;
    return fa.name + ": its region along " + fa.args[d] +
           " has no bound (an index that depends on data, clamped on one side at most), so it can only be inlined";
  }
  return std::nullopt;
}

class BufferSizeValidator : public Validator {
 public:
  std::string_view name() const override { return "buffer_size"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& fs : s.funcs) {
      if (fs.compute.kind == ComputeLocation::Kind::kInline) continue;
      const FuncAnalysis* fa = a.find(fs.func);
      if (!fa || fa->is_output) continue;  // an output is the caller's buffer
      if (auto error = unbounded(*fa)) return error;
      if (fs.compute.kind != ComputeLocation::Kind::kRoot) continue;
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
