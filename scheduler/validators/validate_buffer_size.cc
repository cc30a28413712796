// Buffers Halide cannot allocate are refused before the schedule is built
// (scheduler/buffer_limits.h): a Func read over an unbounded region placed anywhere but
// inline, which Halide refuses to lower, and a Func at root beyond the 2 GB limit, which it
// refuses at run time after seconds of compiling.
#include "scheduler/buffer_limits.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

class BufferSizeValidator : public Validator {
 public:
  std::string_view name() const override { return "buffer_size"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& fs : s.funcs) {
      const FuncAnalysis* fa = a.find(fs.func);
      if (!fa) continue;  // the structure validator names unknown Funcs
      if (auto reason = unallocatable(*fa, fs.compute)) return fs.func + ": " + *reason;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_buffer_size_validator() { return std::make_unique<BufferSizeValidator>(); }

}  // namespace ktune::scheduler
