// Generators used by the tests, built as users build theirs: a shared library linked to
// libHalide, registered with HALIDE_REGISTER_GENERATOR, without GenGen.
#include <Halide.h>

namespace {

using namespace Halide;

// A separable 3x3 box blur scaled by a generator parameter.
class ScaledBlur : public Generator<ScaledBlur> {
 public:
  GeneratorParam<float> scale{"scale", 1.0f};
  GeneratorParam<int> width{"width", 64};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    blur_x(x, y) = input(x, y) + input(x + 1, y) + input(x + 2, y);
    output(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) * (scale / 9.0f);
  }

  void schedule() {
    input.set_estimates({{0, width + 2}, {0, 34}});
    output.set_estimates({{0, width}, {0, 32}});
    if (!auto_schedule) output.vectorize(x, 8).parallel(y);
  }

 private:
  Var x{"x"}, y{"y"};
  Func blur_x{"blur_x"};
};

// Row sums of a matrix plus a bias: a reduction with two inputs.
class RowSum : public Generator<RowSum> {
 public:
  Input<Buffer<float>> matrix{"matrix", 2};
  Input<Buffer<float>> bias{"bias", 1};
  Output<Buffer<float>> output{"output", 1};

  void generate() {
    RDom r(0, 40, "r");
    sums(y) = 0.0f;
    sums(y) += matrix(r.x, y);
    output(y) = sums(y) + bias(y);
  }

  void schedule() {
    matrix.set_estimates({{0, 40}, {0, 24}});
    bias.set_estimates({{0, 24}});
    output.set_estimates({{0, 24}});
  }

 private:
  Var y{"y"};
  Func sums{"sums"};
};

// A gain applied to an image: a scalar input with no estimate, which must be given.
class UnestimatedGain : public Generator<UnestimatedGain> {
 public:
  Input<Buffer<float>> input{"input", 1};
  Input<float> gain{"gain"};
  Output<Buffer<float>> output{"output", 1};

  void generate() { output(x) = input(x) * gain; }
  void schedule() { output.set_estimates({{0, 32}}); }

 private:
  Var x{"x"};
};

// A Generator that dies while building (as buggy user code does): ktune must survive it.
class CrashingGenerator : public Generator<CrashingGenerator> {
 public:
  Input<Buffer<float>> input{"input", 1};
  Output<Buffer<float>> output{"output", 1};

  void generate() {
    volatile int* nowhere = nullptr;
    output(x) = input(x) + static_cast<float>(*nowhere);
  }

 private:
  Var x{"x"};
};

// A pipeline whose every run fails at its default limit (a require() on a scalar): its
// reference cannot be computed, and tuning it must stop at once and say why.
class RequiredLimit : public Generator<RequiredLimit> {
 public:
  Input<Buffer<float>> input{"input", 1};
  Input<float> limit{"limit"};
  Output<Buffer<float>> output{"output", 1};

  void generate() { output(x) = require(limit > 2.0f, input(x) * limit, "limit must be above 2, it is", limit); }
  void schedule() {
    limit.set_estimate(1.0f);
    output.set_estimates({{0, 64}});
  }

 private:
  Var x{"x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ScaledBlur, ktune_test_blur)
HALIDE_REGISTER_GENERATOR(RowSum, ktune_test_rowsum)
HALIDE_REGISTER_GENERATOR(UnestimatedGain, ktune_test_unestimated_gain)
HALIDE_REGISTER_GENERATOR(CrashingGenerator, ktune_test_crash)
HALIDE_REGISTER_GENERATOR(RequiredLimit, ktune_test_required_limit)
