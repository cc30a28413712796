// Multi-scale detail boost on a uint8 image: a Gaussian pyramid `levels` deep, then a
// collapse that upsamples by 2 and adds back each level's boosted detail band. Exercises
// per-level Funcs created in a loop without names and stages at many resolutions.
#include <Halide.h>

#include <vector>

namespace {

using namespace Halide;

// Boosts local contrast at every scale; width and height must be divisible by 2^levels.
class Pyramid : public Generator<Pyramid> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  GeneratorParam<int> levels{"levels", 4};
  GeneratorParam<float> boost{"boost", 0.6f};
  Input<Buffer<uint8_t>> input{"input", 2};
  Output<Buffer<uint8_t>> output{"output", 2};

  void generate() {
    const int n = levels, w = width, h = height;
    _halide_user_assert(n >= 2 && w % (1 << n) == 0 && h % (1 << n) == 0)
        << "width and height must be divisible by 2^levels\n";
    // Per-level Funcs, deliberately left unnamed.
    down.resize(n), down_x.resize(n), up.resize(n), up_x.resize(n), blur_x.resize(n);

    Func clamped = BoundaryConditions::mirror_interior(input);
    down[0](x, y) = cast<float>(clamped(x, y));
    for (int l = 1; l < n; l++) {
      // 1-3-3-1 filter and decimate by 2, separably.
      Func f = down[l - 1], g = down_x[l];
      g(x, y) = (f(2 * x - 1, y) + 3.0f * (f(2 * x, y) + f(2 * x + 1, y)) + f(2 * x + 2, y)) * 0.125f;
      down[l](x, y) = (g(x, 2 * y - 1) + 3.0f * (g(x, 2 * y) + g(x, 2 * y + 1)) + g(x, 2 * y + 2)) * 0.125f;
    }

    // Collapse from the coarsest level: expand the result so far, add the boosted detail band.
    up[n - 1](x, y) = down[n - 1](x, y);
    for (int l = n - 2; l >= 0; l--) {
      Func expanded = upsample(up[l + 1], up_x[l]);
      Func blurred = upsample(down[l + 1], blur_x[l]);
      Expr detail = down[l](x, y) - blurred(x, y);
      up[l](x, y) = expanded(x, y) + (1.0f + boost / (1 + l)) * detail;
    }
    output(x, y) = saturating_cast<uint8_t>(up[0](x, y) + 0.5f);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    Var yo, yi;
    output.split(y, yo, yi, 16).parallel(yo).vectorize(x, natural_vector_size<uint8_t>());
    // Every level is computed root in parallel strips (level 0 so that the mirrored, stride-2
    // reads happen once); up[0] is inlined into output.
    down[0].compute_root().split(y, yo, yi, 16).parallel(yo).vectorize(x, vec);
    for (int l = 1; l < (int)levels; l++) {
      down[l].compute_root().split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
      down_x[l].compute_at(down[l], yo).vectorize(x, vec);
      if (l + 1 < (int)levels) up[l].compute_root().split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
    }
    for (int l = 0; l + 1 < (int)levels; l++) {
      Func consumer = l == 0 ? Func(output) : up[l];
      up_x[l].compute_at(consumer, yo).vectorize(x, vec);
      blur_x[l].compute_at(consumer, yo).vectorize(x, vec);
    }
  }

 private:
  // Bilinear upsampling by 2; the x pass is defined into `fx` so it can be scheduled.
  Func upsample(Func f, Func fx) {
    fx(x, y) = 0.25f * f((x / 2) - 1 + 2 * (x % 2), y) + 0.75f * f(x / 2, y);
    Func fy;
    fy(x, y) = 0.25f * fx(x, (y / 2) - 1 + 2 * (y % 2)) + 0.75f * fx(x, y / 2);
    return fy;
  }

  Var x{"x"}, y{"y"};
  std::vector<Func> down, down_x, up, up_x, blur_x;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Pyramid, ktune_pyramid)
