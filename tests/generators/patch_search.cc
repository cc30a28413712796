// Non-local means over a sparse search window: each output pixel is the average of the
// pixels at offsets (stride * i, stride * j), i, j in [-radius, radius], weighted by how
// alike the 3x3 patches around the two pixels are. The colour difference is a 4-D Func over
// (x, y, dx, dy) that the pipeline reads only at multiples of the stride; computed at root,
// a Func covers the bounding box of its reads, (2 * stride * radius + 1)^2 offsets per
// pixel: 2.5 GB at the default shape, while the pipeline as its author schedules it
// evaluates 49 offsets per pixel. Exercises a reference that must fit.
#include <Halide.h>

namespace {

using namespace Halide;

class PatchSearch : public Generator<PatchSearch> {
 public:
  GeneratorParam<int> width{"width", 128};
  GeneratorParam<int> height{"height", 128};
  GeneratorParam<int> radius{"radius", 3};   // offsets -radius..radius along each axis
  GeneratorParam<int> stride{"stride", 32};  // pixels between two offsets
  GeneratorParam<float> sigma{"sigma", 0.5f};
  Input<Buffer<float>> input{"input", 3};  // x, y, 3 channels
  Output<Buffer<float>> output{"output", 3};

  void generate() {
    clamped = BoundaryConditions::repeat_edge(input);
    // Squared colour difference between (x, y) and (x + dx, y + dy).
    Expr d = 0.0f;
    for (int ch = 0; ch < 3; ++ch) {
      Expr e = clamped(x, y, ch) - clamped(x + dx, y + dy, ch);
      d += e * e;
    }
    diff(x, y, dx, dy) = d;
    // The offsets searched, then the distance of the 3x3 patches around both pixels.
    const int step = stride;
    offset_diff(x, y, i, j) = diff(x, y, step * i, step * j);
    patch_x(x, y, i, j) = offset_diff(x - 1, y, i, j) + offset_diff(x, y, i, j) + offset_diff(x + 1, y, i, j);
    distance(x, y, i, j) = patch_x(x, y - 1, i, j) + patch_x(x, y, i, j) + patch_x(x, y + 1, i, j);
    const float h = sigma;
    const float inv_h2 = 1.0f / (9.0f * 3.0f * h * h);
    weight(x, y, i, j) = exp(-distance(x, y, i, j) * inv_h2);

    const int r = radius;
    search = RDom(-r, 2 * r + 1, -r, 2 * r + 1, "search");
    weighted(x, y, c) = 0.0f;
    weighted(x, y, c) += weight(x, y, search.x, search.y) * clamped(x + step * search.x, y + step * search.y, c);
    total_weight(x, y) = 0.0f;
    total_weight(x, y) += weight(x, y, search.x, search.y);
    output(x, y, c) = weighted(x, y, c) / total_weight(x, y);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}, {0, 3}});
    output.set_estimates({{0, width}, {0, height}, {0, 3}});
    if (auto_schedule) return;

    // Strips of rows in parallel. Per strip: the differences at the searched offsets, their
    // weights, and the two sums, vectorized across x; the 4-D difference over every offset,
    // and the patch sums, stay inline.
    const int vec = natural_vector_size<float>();
    output.reorder(x, c, y).split(y, yo, yi, 8).parallel(yo).vectorize(x, vec);
    offset_diff.compute_at(output, yo).vectorize(x, vec);
    weight.compute_at(output, yo).vectorize(x, vec);
    weighted.compute_at(output, yo).vectorize(x, vec);
    weighted.update().reorder(x, c, search.x, search.y, y).vectorize(x, vec);
    total_weight.compute_at(output, yo).vectorize(x, vec);
    total_weight.update().reorder(x, search.x, search.y, y).vectorize(x, vec);
  }

 private:
  Var x{"x"}, y{"y"}, c{"c"}, dx{"dx"}, dy{"dy"}, i{"i"}, j{"j"}, yo{"yo"}, yi{"yi"};
  Func clamped, diff{"diff"}, offset_diff{"offset_diff"}, patch_x{"patch_x"}, distance{"distance"};
  Func weight{"weight"};
  Func weighted{"weighted"}, total_weight{"total_weight"};
  RDom search;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(PatchSearch, ktune_patch_search)
