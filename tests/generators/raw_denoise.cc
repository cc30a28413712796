// A raw sensor cleanup pipeline on a uint16 frame: black-level subtraction, an edge-aware
// 3x3 denoise, a 3x3 sharpen, gain and clamp. Exercises an unnamed boundary-condition Func,
// two float scalar Inputs and a chain of stencils fused into output tiles.
#include <Halide.h>

namespace {

using namespace Halide;

// Denoises and sharpens a 2-D raw image; black_level and gain are runtime scalars.
class RawDenoise : public Generator<RawDenoise> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  GeneratorParam<float> sharpen{"sharpen", 0.5f};
  Input<Buffer<uint16_t>> input{"input", 2};
  Input<float> black_level{"black_level"};
  Input<float> gain{"gain"};
  Output<Buffer<uint16_t>> output{"output", 2};

  void generate() {
    // Deliberately left unnamed: Halide picks the Func's name.
    Func clamped = BoundaryConditions::repeat_edge(input);

    linear(x, y) = max(cast<float>(clamped(x, y)) - black_level, 0.0f);

    // 1-2-1 binomial blur, separable.
    blur_x(x, y) = (linear(x - 1, y) + 2.0f * linear(x, y) + linear(x + 1, y)) * 0.25f;
    blur_y(x, y) = (blur_x(x, y - 1) + 2.0f * blur_x(x, y) + blur_x(x, y + 1)) * 0.25f;

    // Keep the original where it differs a lot from the blur (an edge), else take the blur.
    Expr edge = clamp(abs(linear(x, y) - blur_y(x, y)) * (1.0f / 256.0f), 0.0f, 1.0f);
    denoised(x, y) = lerp(blur_y(x, y), linear(x, y), edge);

    // Sharpen against the 4-neighbour mean, then apply the gain and clamp to 16 bits.
    Expr neighbours = (denoised(x - 1, y) + denoised(x + 1, y) +
                       denoised(x, y - 1) + denoised(x, y + 1)) * 0.25f;
    sharpened(x, y) = denoised(x, y) + sharpen * (denoised(x, y) - neighbours);
    output(x, y) = cast<uint16_t>(clamp(sharpened(x, y) * gain, 0.0f, 65535.0f));
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    black_level.set_estimate(64.0f);
    gain.set_estimate(1.5f);
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    output.tile(x, y, xo, yo, xi, yi, 128, 32)
        .fuse(xo, yo, tile)
        .parallel(tile)
        .vectorize(xi, vec);
    // Producers are computed per tile; blur_y and sharpened stay inlined.
    denoised.compute_at(output, tile).vectorize(x, vec);
    blur_x.compute_at(output, tile).vectorize(x, vec);
    linear.compute_at(output, tile).vectorize(x, vec);
  }

 private:
  Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, tile{"tile"};
  Func linear{"linear"}, blur_x{"blur_x"}, blur_y{"blur_y"};
  Func denoised{"denoised"}, sharpened{"sharpened"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RawDenoise, ktune_raw_denoise)
