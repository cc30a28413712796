// First-order IIR smoothing of an RGB float image down and up its columns, then along its
// rows: each pass is one Func with two scans (down, then up) sharing one RDom, the up scan
// indexing rows from the image's own height. Vars, RDoms and Funcs are left unnamed, so their
// Halide names come from process-wide counters. Exercises a dependence analysis that must
// give one answer in every process and path: the scans carry a dependence along the rows
// only, so the columns may be vectorized and the channels run in parallel.
#include <Halide.h>

namespace {

using namespace Halide;

class TwoScans : public Generator<TwoScans> {
 public:
  GeneratorParam<int> width{"width", 384};
  GeneratorParam<int> height{"height", 256};
  Input<Buffer<float>> input{"input", 3};
  Input<float> alpha{"alpha"};
  Output<Buffer<float>> output{"output", 3};

  void generate() {
    columns = smooth_columns(input, input.height(), column_scan);
    transposed(x, y, c) = columns(y, x, c);
    rows = smooth_columns(transposed, input.width(), row_scan);
    output(x, y, c) = rows(y, x, c);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}, {0, 3}});
    alpha.set_estimate(0.25f);
    output.set_estimates({{0, width}, {0, height}, {0, 3}});
    if (auto_schedule) return;

    // Each pass at root, its channels in parallel, both scans with the columns innermost and
    // vectorized (the scans run down the rows).
    const int vec = natural_vector_size<float>();
    for (auto [pass, scan] : {std::pair{columns, column_scan}, std::pair{rows, row_scan}}) {
      pass.compute_root().parallel(c).vectorize(x, vec);
      for (int u = 0; u < 2; ++u) pass.update(u).reorder(x, scan.x).parallel(c).vectorize(x, vec);
    }
    output.parallel(c).vectorize(x, vec);
  }

 private:
  // `in` smoothed down its columns and back up: both scans walk the same RDom over rows
  // 1 .. rows-1, the second one from the bottom.
  Func smooth_columns(Func in, Expr rows_in, RDom& scan) {
    Func f;
    scan = RDom(1, rows_in - 1);
    f(x, y, c) = in(x, y, c);
    f(x, scan.x, c) = (1.0f - alpha) * f(x, scan.x - 1, c) + alpha * f(x, scan.x, c);
    Expr up = rows_in - 1 - scan.x;
    f(x, up, c) = (1.0f - alpha) * f(x, up + 1, c) + alpha * f(x, up, c);
    return f;
  }

  Var x, y, c;
  RDom column_scan, row_scan;
  Func columns, transposed, rows;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(TwoScans, ktune_two_scans)
