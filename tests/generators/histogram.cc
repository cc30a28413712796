// Histogram equalization of a uint8 image: a scatter reduction into 256 int32 bins, a serial
// prefix-sum scan over the bins, and a data-dependent lookup. Two outputs (the histogram and
// the equalized image) share the histogram stage.
#include <Halide.h>

namespace {

using namespace Halide;

// Equalizes a grayscale image through its own cumulative histogram; also returns the histogram.
class Histogram : public Generator<Histogram> {
 public:
  GeneratorParam<int> width{"width", 512};
  GeneratorParam<int> height{"height", 384};
  Input<Buffer<uint8_t>> input{"input", 2};
  Output<Buffer<int32_t>> hist_out{"hist_out", 1};
  Output<Buffer<uint8_t>> equalized{"equalized", 2};

  void generate() {
    // Scatter: one increment per pixel, over the whole image.
    r = RDom(0, input.width(), 0, input.height(), "r");
    hist(i) = 0;
    hist(clamp(cast<int>(input(r.x, r.y)), 0, 255)) += 1;

    // Inclusive prefix sum; each bin depends on the previous one.
    RDom b(1, 255, "b");
    cdf(i) = hist(i);
    cdf(b) = cdf(b - 1) + cdf(b);

    // Map the CDF onto 0..255, ignoring the bins below the darkest pixel.
    Expr lowest = cdf(0);
    Expr total = max(cdf(255) - lowest, 1);
    lut(i) = cast<uint8_t>(clamp((cdf(i) - lowest) * 255.0f / total + 0.5f, 0.0f, 255.0f));

    hist_out(i) = hist(i);
    equalized(x, y) = lut(cast<int>(input(x, y)));
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    hist_out.set_estimates({{0, 256}});
    equalized.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    // Parallel histogram: per-strip partial histograms (rfactor over row strips), then a
    // vectorized merge across strips.
    RVar ryo, ryi;
    Var strip;
    hist.compute_root();
    Func partial = hist.update().split(r.y, ryo, ryi, 32).rfactor(ryo, strip);
    partial.compute_root().vectorize(i, 16);
    partial.update().parallel(strip);
    hist.update().vectorize(i, 16);

    cdf.compute_root();
    lut.compute_root().vectorize(i, 16);
    hist_out.vectorize(i, 16);
    Var yo, yi;
    equalized.split(y, yo, yi, 16).parallel(yo).vectorize(x, natural_vector_size<uint8_t>());
  }

 private:
  Var i{"i"}, x{"x"}, y{"y"};
  RDom r;
  Func hist{"hist"}, cdf{"cdf"}, lut{"lut"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Histogram, ktune_histogram)
