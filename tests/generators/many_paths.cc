// A pyramid whose levels mix their bands: every band of a level reads every band of the
// level below, so the number of paths from the output to the input grows as a power of the
// depth (about 36^levels along x) while the Funcs grow only linearly (about 90 at 8 levels).
// Analyses that follow every path instead of every Func never finish on it.
#include <Halide.h>

#include <vector>

namespace {

using namespace Halide;

// Splits an f32 image into `bands` weighted copies, takes each down `levels` levels (a
// 1-2-1 filter and decimation by 2 that mixes all bands of the level below), then collapses
// the pyramid: each level's bands summed, plus the coarser result upsampled by 2.
class ManyPaths : public Generator<ManyPaths> {
 public:
  GeneratorParam<int> width{"width", 256};
  GeneratorParam<int> height{"height", 256};
  GeneratorParam<int> levels{"levels", 8};
  GeneratorParam<int> bands{"bands", 4};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    const int n = levels, b = bands, w = width, h = height;
    _halide_user_assert(n >= 2 && b >= 1 && w % (1 << (n - 1)) == 0 && h % (1 << (n - 1)) == 0)
        << "width and height must be divisible by 2^(levels - 1)\n";
    // Each element default-constructed: a copied Func would be the same Func.
    band.resize(n), across.resize(n), mix.resize(n), up.resize(n), up_x.resize(n), up_y.resize(n);
    for (int l = 0; l < n; l++) band[l].resize(b), across[l].resize(b);

    // The edge repeated by hand, between constants: every read of the input stays inside it.
    Func clamped("clamped");
    clamped(x, y) = input(clamp(x, 0, w - 1), clamp(y, 0, h - 1));
    for (int k = 0; k < b; k++) band[0][k](x, y) = clamped(x, y) * (0.5f + 0.25f * k);
    for (int l = 1; l < n; l++) {
      for (int k = 0; k < b; k++) {
        // Along x: every band of the level below, each through a 1-2-1 tap and weighted.
        Expr sum = 0.0f;
        for (int j = 0; j < b; j++) {
          Func f = band[l - 1][j];
          const float weight = (j == k ? 0.6f : 0.4f / (b > 1 ? b - 1 : 1));
          sum += weight * (f(2 * x - 1, y) + 2.0f * f(2 * x, y) + f(2 * x + 1, y));
        }
        across[l][k](x, y) = 0.25f * sum;
        Func a = across[l][k];
        band[l][k](x, y) = 0.25f * (a(x, 2 * y - 1) + 2.0f * a(x, 2 * y) + a(x, 2 * y + 1));
      }
    }
    for (int l = 0; l < n; l++) {
      Expr sum = 0.0f;
      for (int k = 0; k < b; k++) sum += band[l][k](x, y) * (k % 2 ? -0.5f : 1.0f);
      mix[l](x, y) = sum / b;
    }
    // Collapse from the coarsest level.
    up[n - 1] = mix[n - 1];
    for (int l = n - 2; l >= 0; l--) {
      Func coarse = up[l + 1];
      up_x[l](x, y) = 0.5f * (coarse(x / 2, y) + coarse((x + 1) / 2, y));
      up_y[l](x, y) = 0.5f * (up_x[l](x, y / 2) + up_x[l](x, (y + 1) / 2));
      up[l](x, y) = up_y[l](x, y) + mix[l](x, y);
    }
    output(x, y) = up[0](x, y);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    // Every level at root in parallel strips; the passes along x per strip of their readers.
    const int vec = natural_vector_size<float>();
    Var yo, yi;
    output.split(y, yo, yi, 16).parallel(yo).vectorize(x, vec);
    for (int l = 0; l < (int)levels; l++) {
      for (int k = 0; k < (int)bands; k++) {
        band[l][k].compute_root().split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
        if (l > 0) across[l][k].compute_at(band[l][k], yo).vectorize(x, vec);
      }
      if (l > 0) up[l].compute_root().split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
    }
  }

 private:
  Var x{"x"}, y{"y"};
  std::vector<std::vector<Func>> band, across;
  std::vector<Func> mix, up, up_x, up_y;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ManyPaths, ktune_many_paths)
