// An edge-preserving blur of a float image through a bilateral grid: every s x s block of
// pixels is scattered into the intensity bins of one grid column (value and count), the grid
// is blurred along intensity, x and y, and each pixel reads its result back by trilinear
// interpolation at its own intensity. Exercises a histogram-like RDom update whose bin is
// data, a 4-D intermediate, and data-dependent gathers at full resolution.
#include <Halide.h>

namespace {

using namespace Halide;

class BilateralGrid : public Generator<BilateralGrid> {
 public:
  GeneratorParam<int> width{"width", 1536};
  GeneratorParam<int> height{"height", 1024};
  Input<Buffer<float>> input{"input", 2};  // intensities in [0, 1]
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    // Cell (x, y) takes the s x s pixels around (s*x, s*y); channel 0 sums values, 1 counts.
    Func clamped = BoundaryConditions::repeat_edge(input);
    r = RDom(0, kS, 0, kS, "r");
    Expr v = clamp(clamped(x * kS + r.x - kS / 2, y * kS + r.y - kS / 2), 0.0f, 1.0f);
    grid(x, y, z, c) = 0.0f;
    grid(x, y, cast<int>(v * (kBins - 1) + 0.5f), c) += select(c == 0, v, 1.0f);

    // 1-4-6-4-1 along each axis, unnormalised: the scale cancels in the final division.
    blur_z(x, y, z, c) = grid(x, y, z - 2, c) + grid(x, y, z + 2, c) +
                         4.0f * (grid(x, y, z - 1, c) + grid(x, y, z + 1, c)) + 6.0f * grid(x, y, z, c);
    blur_x(x, y, z, c) = blur_z(x - 2, y, z, c) + blur_z(x + 2, y, z, c) +
                         4.0f * (blur_z(x - 1, y, z, c) + blur_z(x + 1, y, z, c)) + 6.0f * blur_z(x, y, z, c);
    blur_y(x, y, z, c) = blur_x(x, y - 2, z, c) + blur_x(x, y + 2, z, c) +
                         4.0f * (blur_x(x, y - 1, z, c) + blur_x(x, y + 1, z, c)) + 6.0f * blur_x(x, y, z, c);

    // The grid interpolated to each output row (still at grid resolution along x), then
    // along x and along the pixel's own intensity.
    Expr yw = cast<float>(y % kS) * (1.0f / kS);
    slice_y(x, y, z, c) = lerp(blur_y(x, y / kS, z, c), blur_y(x, y / kS + 1, z, c), yw);
    Expr zf = clamp(input(x, y), 0.0f, 1.0f) * (kBins - 1);
    Expr zi = min(cast<int>(zf), kBins - 2);
    Expr xi = x / kS, xw = cast<float>(x % kS) * (1.0f / kS);
    Expr low = lerp(slice_y(xi, y, zi, c), slice_y(xi + 1, y, zi, c), xw);
    Expr high = lerp(slice_y(xi, y, zi + 1, c), slice_y(xi + 1, y, zi + 1, c), xw);
    interpolated(x, y, c) = lerp(low, high, zf - cast<float>(zi));
    output(x, y) = interpolated(x, y, 0) / max(interpolated(x, y, 1), 1e-6f);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    Var yo, yi;
    // Pass 1, in parallel over grid rows: scatter one row of cells, then blur it along z and
    // along x. The scatter is scalar (its bins are data), sweeping each input row of the block
    // in memory order, 8 pixels unrolled; both channels are updated together.
    blur_x.compute_root().reorder(c, x, z, y).parallel(y).vectorize(x, vec).unroll(c);
    blur_z.compute_at(blur_x, y).reorder(c, x, z, y).vectorize(x, vec).unroll(c);
    grid.compute_at(blur_x, y).reorder(c, x, z, y).vectorize(x, vec).unroll(c);
    grid.update().reorder(c, r.x, x, r.y, y).unroll(c).unroll(r.x);
    // Pass 2, in parallel over strips of 32 output rows: the y blur of the strip's grid rows,
    // then per output row the grid lerped to that row (18 KiB, in L1, where the pixels'
    // gathers land), then the pixels, vectorized.
    output.split(y, yo, yi, 4 * kS).parallel(yo).vectorize(x, vec);
    blur_y.compute_at(output, yo).reorder(c, x, z, y).vectorize(x, vec).unroll(c);
    slice_y.compute_at(output, yi).reorder(c, x, z, y).vectorize(x, vec).unroll(c);
    for (Func f : {grid, blur_z, blur_x, blur_y, slice_y}) f.bound(c, 0, 2);
  }

 private:
  static constexpr int kS = 8;      // pixels per grid cell along x and y
  static constexpr int kBins = 12;  // intensity bins
  Var x{"x"}, y{"y"}, z{"z"}, c{"c"};
  RDom r;
  Func grid{"grid"}, blur_z{"blur_z"}, blur_x{"blur_x"}, blur_y{"blur_y"};
  Func slice_y{"slice_y"}, interpolated{"interpolated"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BilateralGrid, ktune_bilateral_grid)
