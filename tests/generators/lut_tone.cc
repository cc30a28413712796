// A tone curve with local contrast on a uint16 image, in float inside: a 4097-entry float
// curve is looked up by the top 12 bits of each pixel and interpolated by the low 4, a 5x5
// blur of the toned image separates base from detail, and the detail is boosted before the
// result is rounded back to 16 bits. Exercises a lookup table indexed by data, u16 in and
// out with float arithmetic between (schedules may round an element differently by 1), and
// a float scalar.
#include <Halide.h>

namespace {

using namespace Halide;

class LutTone : public Generator<LutTone> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  Input<Buffer<uint16_t>> input{"input", 2};
  Input<float> contrast{"contrast"};  // detail gain; 1 keeps the detail as it is
  Output<Buffer<uint16_t>> output{"output", 2};

  void generate() {
    // A filmic curve through (0, 0) and (1, 1): lifts shadows, compresses highlights.
    Expr t = cast<float>(i) * (1.0f / kSteps);
    curve(i) = 65535.0f * t * (1.0f + kShoulder) / (t + kShoulder);

    Func clamped = BoundaryConditions::mirror_image(input);
    Expr pixel = cast<int32_t>(clamped(x, y));
    Expr index = pixel >> 4;
    Expr weight = cast<float>(pixel & 15) * (1.0f / 16.0f);
    toned(x, y) = lerp(curve(index), curve(index + 1), weight);

    // 1-4-6-4-1 binomial blur, separable.
    blur_x(x, y) = (toned(x - 2, y) + toned(x + 2, y) + 4.0f * (toned(x - 1, y) + toned(x + 1, y)) +
                    6.0f * toned(x, y)) * (1.0f / 16.0f);
    base(x, y) = (blur_x(x, y - 2) + blur_x(x, y + 2) + 4.0f * (blur_x(x, y - 1) + blur_x(x, y + 1)) +
                  6.0f * blur_x(x, y)) * (1.0f / 16.0f);
    Expr result = base(x, y) + contrast * (toned(x, y) - base(x, y));
    output(x, y) = cast<uint16_t>(clamp(result + 0.5f, 0.0f, 65535.0f));
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    contrast.set_estimate(1.5f);
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    Var xo, yo, xi, yi, tile;
    curve.compute_root().bound(i, 0, kSteps + 1).vectorize(i, vec);
    output.tile(x, y, xo, yo, xi, yi, 128, 32).fuse(xo, yo, tile).parallel(tile).vectorize(xi, vec);
    // The toned image and the x pass per tile; base is inlined into the output.
    toned.compute_at(output, tile).vectorize(x, vec);
    blur_x.compute_at(output, tile).vectorize(x, vec);
  }

 private:
  static constexpr int kSteps = 4096;
  static constexpr float kShoulder = 0.25f;
  Var x{"x"}, y{"y"}, i{"i"};
  Func curve{"curve"}, toned{"toned"}, blur_x{"blur_x"}, base{"base"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LutTone, ktune_lut_tone)
