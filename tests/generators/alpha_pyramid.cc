// Fills the transparent parts of an RGBA float image from its opaque neighbours: the
// image is premultiplied by its alpha, reduced through a pyramid `levels` deep, filled from
// the coarsest level back up (each level keeps what its own alpha covers and takes the rest
// from the level below), and finally divided by the filled alpha. Exercises a division by
// data (ill-conditioned where alpha is near 0), four channels of f32 and pyramid levels.
#include <Halide.h>

#include <vector>

namespace {

using namespace Halide;

// Width and height must be divisible by 2^(levels - 1).
class AlphaPyramid : public Generator<AlphaPyramid> {
 public:
  GeneratorParam<int> width{"width", 384};
  GeneratorParam<int> height{"height", 256};
  GeneratorParam<int> levels{"levels", 4};
  Input<Buffer<float>> input{"input", 3};  // x, y, channel (r, g, b, alpha)
  Output<Buffer<float>> output{"output", 3};

  void generate() {
    const int n = levels;
    _halide_user_assert(n >= 2 && width % (1 << (n - 1)) == 0 && height % (1 << (n - 1)) == 0)
        << "width and height must be divisible by 2^(levels - 1)\n";
    reduced.resize(n), reduced_x.resize(n), filled.resize(n), expanded_x.resize(n);

    Func edge = BoundaryConditions::repeat_edge(input);
    Expr alpha = edge(x, y, 3);
    reduced[0](x, y, c) = select(c == 3, alpha, edge(x, y, c) * alpha);
    for (int l = 1; l < n; l++) {
      // 1-2-1 binomial filter, then every second sample, separably.
      Func f = reduced[l - 1];
      reduced_x[l](x, y, c) = 0.25f * f(2 * x - 1, y, c) + 0.5f * f(2 * x, y, c) + 0.25f * f(2 * x + 1, y, c);
      Func g = reduced_x[l];
      reduced[l](x, y, c) = 0.25f * g(x, 2 * y - 1, c) + 0.5f * g(x, 2 * y, c) + 0.25f * g(x, 2 * y + 1, c);
    }

    // From the coarsest level up: what a level's alpha leaves uncovered comes from below.
    filled[n - 1](x, y, c) = reduced[n - 1](x, y, c);
    for (int l = n - 2; l >= 0; l--) {
      Func below = expand(filled[l + 1], expanded_x[l]);
      filled[l](x, y, c) = reduced[l](x, y, c) + (1.0f - reduced[l](x, y, 3)) * below(x, y, c);
    }
    // Divide the colour by the filled alpha; alpha itself is kept.
    Expr coverage = filled[0](x, y, 3);
    output(x, y, c) = select(c == 3, coverage, filled[0](x, y, c) / coverage);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}, {0, 4}});
    output.set_estimates({{0, width}, {0, height}, {0, 4}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    Var yo, yi;
    // Every stage loops over its four channels innermost, unrolled, and vectorizes x.
    const auto rgba = [&](Func f) { f.bound(c, 0, 4).reorder(c, x, y).unroll(c); };
    for (Func f : {Func(output), filled[0], reduced[0]}) rgba(f);
    output.split(y, yo, yi, 16).parallel(yo).vectorize(x, vec);
    filled[0].compute_at(output, yo).vectorize(x, vec);
    reduced[0].compute_root().parallel(y, 16).vectorize(x, vec);
    for (int l = 1; l < (int)levels; l++) {
      rgba(reduced[l]), rgba(reduced_x[l]);
      reduced[l].compute_root().split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
      reduced_x[l].compute_at(reduced[l], yo).vectorize(x, vec);
      if (l + 1 < (int)levels) rgba(filled[l]), filled[l].compute_root().parallel(y, 8).vectorize(x, vec);
    }
    // The x pass of each expansion per strip of its consumer.
    for (int l = 0; l + 1 < (int)levels; l++) {
      rgba(expanded_x[l]);
      if (l == 0) {
        expanded_x[l].compute_at(output, yo).vectorize(x, vec);
      } else {
        expanded_x[l].compute_at(filled[l], y).vectorize(x, vec);
      }
    }
  }

 private:
  // Doubles the resolution: each new sample weighs its two nearest old ones 3:1, per axis.
  Func expand(Func f, Func fx) {
    fx(x, y, c) = 0.75f * f(x / 2, y, c) + 0.25f * f(x / 2 + 2 * (x % 2) - 1, y, c);
    Func fy;
    fy(x, y, c) = 0.75f * fx(x, y / 2, c) + 0.25f * fx(x, y / 2 + 2 * (y % 2) - 1, c);
    return fy;
  }

  Var x{"x"}, y{"y"}, c{"c"};
  std::vector<Func> reduced, reduced_x, filled, expanded_x;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(AlphaPyramid, ktune_alpha_pyramid)
