// An unsharp mask on a planar RGB float image: a 7-tap Gaussian blur of the luma (edges
// repeated), luma sharpened by its detail band, and each channel scaled by the ratio of
// sharpened to original luma. Exercises a 3-channel output around a 2-D stencil and a hand
// schedule with sliding windows inside parallel strips.
#include <Halide.h>

namespace {

using namespace Halide;

class BlurChain : public Generator<BlurChain> {
 public:
  GeneratorParam<int> width{"width", 1536};
  GeneratorParam<int> height{"height", 1024};
  GeneratorParam<float> amount{"amount", 1.25f};
  Input<Buffer<float>> input{"input", 3};  // x, y, channel (r, g, b)
  Output<Buffer<float>> output{"output", 3};

  void generate() {
    clamped = BoundaryConditions::repeat_edge(input);
    luma(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    // Gaussian with sigma 1.5, radius 3, separable.
    const float w[4] = {0.2659f, 0.2129f, 0.1093f, 0.0360f};
    Expr bx = w[0] * luma(x, y);
    for (int i = 1; i <= 3; i++) bx += w[i] * (luma(x - i, y) + luma(x + i, y));
    blur_x(x, y) = bx;
    Expr by = w[0] * blur_x(x, y);
    for (int i = 1; i <= 3; i++) by += w[i] * (blur_x(x, y - i) + blur_x(x, y + i));
    blur_y(x, y) = by;
    detail(x, y) = luma(x, y) - blur_y(x, y);
    sharp(x, y) = luma(x, y) + amount * detail(x, y);
    ratio(x, y) = sharp(x, y) / max(luma(x, y), 1e-3f);
    output(x, y, c) = clamp(clamped(x, y, c) * ratio(x, y), 0.0f, 1.0f);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}, {0, 3}});
    output.set_estimates({{0, width}, {0, height}, {0, 3}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    // Strips of 32 rows (32 strips of 1024); the three channels unrolled inside x.
    output.bound(c, 0, 3).reorder(c, x, y).unroll(c);
    output.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
    // Luma and the horizontal pass slide down each strip: one new row per output row,
    // kept in a few rows of storage (blur_x reads luma 3 rows ahead of the output, and
    // Halide 14 does not fold that by itself). detail, sharp and ratio are inlined.
    luma.store_at(output, y).compute_at(output, yi).vectorize(x, vec).fold_storage(y, 8);
    blur_x.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    // The vertical pass once per row, not once per unrolled channel.
    blur_y.compute_at(output, yi).vectorize(x, vec);
  }

 private:
  Var x{"x"}, y{"y"}, c{"c"}, yi{"yi"};
  Func clamped, luma{"luma"}, blur_x{"blur_x"}, blur_y{"blur_y"}, detail{"detail"}, sharp{"sharp"},
      ratio{"ratio"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BlurChain, ktune_blur_chain)
