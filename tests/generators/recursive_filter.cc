// Forward-backward first-order IIR smoothing along x of a float image. Exercises update
// definitions over RDoms that carry a dependence along the scan but are parallel across rows,
// a runtime float scalar, and a transposed (y-innermost) vectorized hand schedule.
#include <Halide.h>

namespace {

using namespace Halide;

// Zero-phase exponential smoothing of each row: a causal scan left to right, then an
// anticausal scan right to left over the result.
class RecursiveFilter : public Generator<RecursiveFilter> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  Input<Buffer<float>> input{"input", 2};
  Input<float> alpha{"alpha"};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Expr w = input.width();

    causal(x, y) = input(x, y);
    r = RDom(1, w - 1, "r");
    causal(r, y) = (1.0f - alpha) * causal(r - 1, y) + alpha * input(r, y);

    // s runs 1..w-1, so xr walks from w-2 down to 0.
    anticausal(x, y) = causal(x, y);
    s = RDom(1, w - 1, "s");
    Expr xr = w - 1 - s;
    anticausal(xr, y) = (1.0f - alpha) * anticausal(xr + 1, y) + alpha * causal(xr, y);

    output(x, y) = anticausal(x, y);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    alpha.set_estimate(0.25f);
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    // Strips of one vector of rows in parallel. Inside a strip both scans run with y innermost
    // and vectorized; the per-strip intermediates are stored transposed, so those vectors are
    // dense, and in stack memory rather than one heap allocation each.
    const int vec = natural_vector_size<float>();
    output.split(y, yo, yi, vec).parallel(yo).vectorize(x, vec);
    causal.compute_at(output, yo).store_in(MemoryType::Stack).reorder_storage(y, x);
    causal.reorder(y, x).vectorize(y, vec);
    causal.update().reorder(y, r).vectorize(y, vec);
    anticausal.compute_at(output, yo).store_in(MemoryType::Stack).reorder_storage(y, x);
    anticausal.reorder(y, x).vectorize(y, vec);
    anticausal.update().reorder(y, s).vectorize(y, vec);
  }

 private:
  Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"};
  RDom r, s;
  Func causal{"causal"}, anticausal{"anticausal"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RecursiveFilter, ktune_recursive_filter)
