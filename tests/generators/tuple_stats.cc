// Local min/max contrast stretch of a float image: one Tuple-valued Func holds the (min, max)
// of each pixel's 5x5 window, built by an inline RDom update, and a normalization stage reads
// both Tuple elements. Exercises Tuple-valued reductions and a mirrored boundary condition.
#include <Halide.h>

#include <limits>

namespace {

using namespace Halide;

// Stretches each pixel to [0, 1] relative to the min and max of its 5x5 neighbourhood.
class TupleStats : public Generator<TupleStats> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  GeneratorParam<float> epsilon{"epsilon", 1e-3f};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Func clamped = BoundaryConditions::mirror_image(input);

    // stats(x, y) = (min, max) over the window, as one Tuple-valued reduction.
    const float inf = std::numeric_limits<float>::infinity();
    w = RDom(-2, 5, -2, 5, "w");
    stats(x, y) = Tuple(inf, -inf);
    Expr v = clamped(x + w.x, y + w.y);
    stats(x, y) = Tuple(min(stats(x, y)[0], v), max(stats(x, y)[1], v));

    Expr lo = stats(x, y)[0], hi = stats(x, y)[1];
    output(x, y) = (clamped(x, y) - lo) / max(hi - lo, epsilon);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    output.tile(x, y, xo, yo, xi, yi, 128, 16)
        .fuse(xo, yo, tile)
        .parallel(tile)
        .vectorize(xi, vec);
    // Per tile: both Tuple elements computed together, window loops unrolled around the vector.
    stats.compute_at(output, tile).vectorize(x, vec);
    stats.update().split(x, x, xi, vec).reorder(xi, w.x, w.y, x, y).vectorize(xi).unroll(w.x);
  }

 private:
  Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, tile{"tile"};
  RDom w;
  Func stats{"stats"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(TupleStats, ktune_tuple_stats)
