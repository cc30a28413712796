// Registers a generator under a name that test_generators.cc also registers: loading
// both into one process aborts it, which ktune must report instead of dying.
#include <Halide.h>

namespace {

class Clash : public Halide::Generator<Clash> {
 public:
  Input<Buffer<float>> input{"input", 1};
  Output<Buffer<float>> output{"output", 1};
  void generate() { output(x) = input(x) * 2.0f; }
  void schedule() {
    input.set_estimates({{0, 16}});
    output.set_estimates({{0, 16}});
  }

 private:
  Halide::Var x{"x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Clash, ktune_test_blur)
