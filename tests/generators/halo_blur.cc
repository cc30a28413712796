// A soft-limited unsharp mask on a float image with no boundary condition: every output
// pixel reads a 5x5 neighbourhood, so the output's estimated region starts at (2, 2) and the
// input's estimate is 4 pixels larger. Exercises non-zero output mins and halo bounds.
#include <Halide.h>

namespace {

using namespace Halide;

// 5x5 binomial blur, then input + amount * soft-clipped (input - blur). Reads input(x-2..x+2).
class HaloBlur : public Generator<HaloBlur> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  GeneratorParam<float> amount{"amount", 1.5f};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    // 1-4-6-4-1 / 16 in each direction, separable.
    blur_x(x, y) = (input(x - 2, y) + input(x + 2, y) + 4.0f * (input(x - 1, y) + input(x + 1, y)) +
                    6.0f * input(x, y)) * (1.0f / 16.0f);
    blur_y(x, y) = (blur_x(x, y - 2) + blur_x(x, y + 2) + 4.0f * (blur_x(x, y - 1) + blur_x(x, y + 1)) +
                    6.0f * blur_x(x, y)) * (1.0f / 16.0f);
    // Detail band, soft-clipped so that strong edges do not ring.
    Expr d = input(x, y) - blur_y(x, y);
    detail(x, y) = d / (1.0f + 4.0f * abs(d));
    output(x, y) = input(x, y) + amount * detail(x, y);
  }

  void schedule() {
    // Output pixels (2..width+1, 2..height+1) read input pixels (0..width+3, 0..height+3).
    input.set_estimates({{0, width + 4}, {0, height + 4}});
    output.set_estimates({{2, width}, {2, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    output.tile(x, y, xo, yo, xi, yi, 256, 32)
        .fuse(xo, yo, tile)
        .parallel(tile)
        .vectorize(xi, vec);
    // The horizontal pass is computed per tile (36 rows for 32); blur_y and detail are inlined.
    blur_x.compute_at(output, tile).vectorize(x, vec);
  }

 private:
  Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, tile{"tile"};
  Func blur_x{"blur_x"}, blur_y{"blur_y"}, detail{"detail"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(HaloBlur, ktune_halo_blur)
