// A 15x15 dilation (running max) of a float image (edges repeated), separable, each pass
// built by doubling: max over 2, 4 and 8 samples, then two overlapping windows of 8 make 15.
// Exercises a chain of one-sided shifted reads whose halos are asymmetric, and a hand
// schedule that slides the vertical pass down each strip.
#include <Halide.h>

namespace {

using namespace Halide;

class RunningMax : public Generator<RunningMax> {
 public:
  GeneratorParam<int> width{"width", 2048};
  GeneratorParam<int> height{"height", 1536};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    clamped = BoundaryConditions::repeat_edge(input);
    // Max over x .. x + 1, x .. x + 3, x .. x + 7, then x - 7 .. x + 7.
    max2_x(x, y) = max(clamped(x, y), clamped(x + 1, y));
    max4_x(x, y) = max(max2_x(x, y), max2_x(x + 2, y));
    max8_x(x, y) = max(max4_x(x, y), max4_x(x + 4, y));
    max15_x(x, y) = max(max8_x(x - 7, y), max8_x(x, y));
    // The same along y.
    max2_y(x, y) = max(max15_x(x, y), max15_x(x, y + 1));
    max4_y(x, y) = max(max2_y(x, y), max2_y(x, y + 2));
    max8_y(x, y) = max(max4_y(x, y), max4_y(x, y + 4));
    output(x, y) = max(max8_y(x, y - 7), max8_y(x, y));
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    // Strips of 96 rows (16 strips of 1536): each strip recomputes a 14-row halo of the
    // vertical pass. Every stage slides down the strip: the vertical ones compute one new row
    // per output row and keep only the rows their consumer still reads; the horizontal ones,
    // one row each.
    output.split(y, y, yi, 96).parallel(y).vectorize(x, vec);
    for (Func f : {max8_y, max4_y, max2_y, max15_x, max8_x, max4_x, max2_x}) {
      f.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    }
  }

 private:
  Var x{"x"}, y{"y"}, yi{"yi"};
  Func clamped, max2_x{"max2_x"}, max4_x{"max4_x"}, max8_x{"max8_x"}, max15_x{"max15_x"}, max2_y{"max2_y"},
      max4_y{"max4_y"}, max8_y{"max8_y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RunningMax, ktune_running_max)
