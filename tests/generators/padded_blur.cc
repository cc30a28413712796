// A 3x3 box blur of a u8 image whose input is estimated larger than what the output reads
// (the image arrives with a margin, as a camera frame with padding does), and whose hand
// schedule rounds its producer up to whole tiles: it reads the input beyond the region the
// output needs, where only the estimate says the input extends; it also bounds the output
// to whole strips of 32 rows. Exercises inputs allocated over the larger of the inferred
// region and the estimate, and the hand schedule run over the rows its bound gives, so that
// every method runs where the Generator's own program runs it.
#include <Halide.h>

namespace {

using namespace Halide;

class PaddedBlur : public Generator<PaddedBlur> {
 public:
  GeneratorParam<int> width{"width", 500};
  GeneratorParam<int> height{"height", 300};
  GeneratorParam<int> margin{"margin", 64};
  Input<Buffer<uint8_t>> input{"input", 2};
  Output<Buffer<uint8_t>> output{"output", 2};

  void generate() {
    blur_x(x, y) = cast<uint16_t>(input(x - 1, y)) + input(x, y) + input(x + 1, y);
    output(x, y) = cast<uint8_t>((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1) + 4) / 9);
  }

  void schedule() {
    // The output (1..width, 1..height) reads input (0..width+1, 0..height+1); the input
    // is estimated `margin` pixels larger on the far sides.
    input.set_estimates({{0, width + int(margin)}, {0, height + int(margin)}});
    output.set_estimates({{1, width}, {1, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<uint16_t>();
    // Whole tiles of 64 x 32 (RoundUp): up to 63 columns and 31 rows past what is needed.
    blur_x.compute_root()
        .split(x, xo, xi, 64, TailStrategy::RoundUp)
        .split(y, yo, yi, 32, TailStrategy::RoundUp)
        .reorder(xi, yi, xo, yo)
        .vectorize(xi, vec)
        .parallel(yo);
    // Strips of 32 rows with no tail: the output is bounded to whole strips of its buffer, so
    // the program this Generator ships computes (and must be given) that many rows.
    output.bound(y, 1, (output.height() / 32) * 32);
    output.split(y, yo, yi, 32).parallel(yo).vectorize(x, vec);
  }

 private:
  Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"};
  Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(PaddedBlur, ktune_padded_blur)
