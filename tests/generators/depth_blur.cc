// A depth-of-field blur: a stack of ever more blurred copies of a grey image, and each
// output pixel reads the level its depth asks for. The level is computed from float depth
// and clamped below only (the stack's select gives the top level to anything above it),
// so the region of the stack along the level is unbounded: the stack can only be inlined,
// and bounds inference from the outputs cannot say how far it reaches. Exercises a
// data-dependent gather with a one-sided clamp.
#include <Halide.h>

namespace {

using namespace Halide;

class DepthBlur : public Generator<DepthBlur> {
 public:
  GeneratorParam<int> width{"width", 384};
  GeneratorParam<int> height{"height", 256};
  Input<Buffer<float>> input{"input", 2};
  Input<Buffer<float>> depth{"depth", 2};
  Input<float> focus{"focus"};  // the depth that stays sharp
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    clamped = BoundaryConditions::repeat_edge(input);
    // Level k + 1 is level k blurred by a 1-2-1 filter with taps 2^k apart (a trous).
    levels.push_back(clamped);
    for (int k = 0; k < kLevels - 1; ++k) {
      const int step = 1 << k;
      Func prev = levels.back();
      Func horizontal("horizontal_" + std::to_string(k)), blurred("blurred_" + std::to_string(k));
      horizontal(x, y) = 0.25f * (prev(x - step, y) + 2.0f * prev(x, y) + prev(x + step, y));
      blurred(x, y) = 0.25f * (horizontal(x, y - step) + 2.0f * horizontal(x, y) + horizontal(x, y + step));
      levels.push_back(blurred);
    }
    Expr pick = levels.back()(x, y);
    for (int k = kLevels - 2; k >= 0; --k) pick = select(z <= k, levels[k](x, y), pick);
    stack(x, y, z) = pick;

    // Blur grows with the distance from the focus; nothing bounds it above.
    level(x, y) = max(cast<int>(abs(depth(x, y) - focus) * 6.0f), 0);
    output(x, y) = stack(x, y, level(x, y));
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    depth.set_estimates({{0, width}, {0, height}});
    focus.set_estimate(0.25f);
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    // Strips of rows in parallel, each level computed over its strip (with the halo the
    // next level needs); the stack and the level index stay inline.
    const int vec = natural_vector_size<float>();
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, vec);
    for (size_t k = 1; k < levels.size(); ++k) {
      levels[k].compute_at(output, yo).vectorize(x, vec);
    }
  }

 private:
  static constexpr int kLevels = 4;
  Var x{"x"}, y{"y"}, z{"z"}, yo{"yo"}, yi{"yi"};
  Func clamped, stack{"stack"}, level{"level"};
  std::vector<Func> levels;  // the image, then each blurred level
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthBlur, ktune_depth_blur)
