// A Harris corner response on a planar RGB float image: grey, Sobel gradients, their
// products summed over 3x3 boxes, then det - k * trace^2 (edges repeated). Exercises
// sibling stencils over one producer (fused with compute_with in the hand schedule), chained
// 3x3 halos and a 3-channel input feeding a 1-channel output.
#include <Halide.h>

namespace {

using namespace Halide;

class CornerResponse : public Generator<CornerResponse> {
 public:
  GeneratorParam<int> width{"width", 1536};
  GeneratorParam<int> height{"height", 1024};
  GeneratorParam<float> k{"k", 0.04f};
  Input<Buffer<float>> input{"input", 3};  // x, y, channel (r, g, b)
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    clamped = BoundaryConditions::repeat_edge(input);
    gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
    // Sobel: a 1-2-1 smoothing across the derivative's direction.
    Ix(x, y) = ((gray(x + 1, y - 1) + 2.0f * gray(x + 1, y) + gray(x + 1, y + 1)) -
                (gray(x - 1, y - 1) + 2.0f * gray(x - 1, y) + gray(x - 1, y + 1))) * 0.125f;
    Iy(x, y) = ((gray(x - 1, y + 1) + 2.0f * gray(x, y + 1) + gray(x + 1, y + 1)) -
                (gray(x - 1, y - 1) + 2.0f * gray(x, y - 1) + gray(x + 1, y - 1))) * 0.125f;
    Ixx(x, y) = Ix(x, y) * Ix(x, y);
    Iyy(x, y) = Iy(x, y) * Iy(x, y);
    Ixy(x, y) = Ix(x, y) * Iy(x, y);
    const auto box3 = [&](Func f) {
      Expr s = 0.0f;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) s += f(x + dx, y + dy);
      return s;
    };
    Sxx(x, y) = box3(Ixx);
    Syy(x, y) = box3(Iyy);
    Sxy(x, y) = box3(Ixy);
    det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
    trace(x, y) = Sxx(x, y) + Syy(x, y);
    output(x, y) = det(x, y) - k * trace(x, y) * trace(x, y);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}, {0, 3}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    output.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
    // Grey and both gradients slide down each strip, one new row each per output row; the
    // two gradients read the same rows of grey in one fused loop over x.
    gray.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    Iy.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    Ix.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    Ix.compute_with(Iy, x);
    // The products and box sums are inlined into the response.
  }

 private:
  Var x{"x"}, y{"y"}, yi{"yi"};
  Func clamped, gray{"gray"}, Ix{"Ix"}, Iy{"Iy"}, Ixx{"Ixx"}, Iyy{"Iyy"}, Ixy{"Ixy"}, Sxx{"Sxx"},
      Syy{"Syy"}, Sxy{"Sxy"}, det{"det"}, trace{"trace"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CornerResponse, ktune_corner_response)
