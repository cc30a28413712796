// A depthwise-separable convolution layer (as in MobileNet) on f32 activations stored channels
// innermost (c, x, y): a 3x3 depthwise convolution with zero padding, bias and ReLU, then a 1x1
// pointwise convolution to more channels, bias and ReLU. Exercises a small-channel stencil
// feeding a reduction over channels that is a matrix product per pixel.
#include <Halide.h>

namespace {

using namespace Halide;

class DepthwiseSeparable : public Generator<DepthwiseSeparable> {
 public:
  GeneratorParam<int> width{"width", 160};
  GeneratorParam<int> height{"height", 160};
  GeneratorParam<int> channels_in{"channels_in", 64};
  GeneratorParam<int> channels_out{"channels_out", 128};
  Input<Buffer<float>> input{"input", 3};                // c, x, y
  Input<Buffer<float>> dw_weights{"dw_weights", 3};      // c, dx, dy (3x3)
  Input<Buffer<float>> dw_bias{"dw_bias", 1};            // c
  Input<Buffer<float>> pw_weights{"pw_weights", 2};      // k (output channel), c
  Input<Buffer<float>> pw_bias{"pw_bias", 1};            // k
  Output<Buffer<float>> output{"output", 3};             // k, x, y

  void generate() {
    // Zero outside the image along x and y only; every channel is present.
    Func padded = BoundaryConditions::constant_exterior(
        input, 0.0f, {{Expr(), Expr()}, {input.dim(1).min(), input.dim(1).extent()},
                      {input.dim(2).min(), input.dim(2).extent()}});
    Expr sum = dw_bias(c);
    for (int dy = 0; dy < 3; dy++) {
      for (int dx = 0; dx < 3; dx++) sum += padded(c, x + dx - 1, y + dy - 1) * dw_weights(c, dx, dy);
    }
    depthwise(c, x, y) = max(sum, 0.0f);

    // 1x1 convolution: at every pixel, the pointwise weights times the depthwise channels.
    rc = RDom(0, channels_in, "rc");
    pointwise(k, x, y) = pw_bias(k);
    pointwise(k, x, y) += pw_weights(k, rc) * depthwise(rc, x, y);
    output(k, x, y) = max(pointwise(k, x, y), 0.0f);
  }

  void schedule() {
    const int w = width, h = height, ci = channels_in, co = channels_out;
    input.set_estimates({{0, ci}, {0, w}, {0, h}});
    dw_weights.set_estimates({{0, ci}, {0, 3}, {0, 3}});
    dw_bias.set_estimates({{0, ci}});
    pw_weights.set_estimates({{0, co}, {0, ci}});
    pw_bias.set_estimates({{0, co}});
    output.set_estimates({{0, co}, {0, w}, {0, h}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    const int pixels = vec >= 16 ? 8 : 4;  // 16 accumulators of 32 vector registers (AVX-512), 8 of 16
    Var ko, ki, xo, xi, yo, yi;
    // Strips of 4 rows in parallel. The pointwise convolution is a matrix product per row:
    // register tiles of 2 vectors of output channels by `pixels` pixels, accumulated over the
    // input channels (one weight vector load and one broadcast per multiply-add pair).
    output.split(y, yo, yi, 4)
        .split(x, xo, xi, pixels)
        .split(k, ko, ki, 2 * vec)
        .reorder(ki, xi, ko, xo, yi, yo)
        .vectorize(ki, vec)
        .unroll(ki)
        .unroll(xi)
        .parallel(yo);
    pointwise.compute_at(output, ko).vectorize(k, vec).unroll(k).unroll(x);
    pointwise.update().reorder(k, x, rc, y).vectorize(k, vec).unroll(k).unroll(x);
    // The depthwise convolution of each row (40 KiB at the default sizes: in L2, and small
    // enough to come from the heap rather than mmap), vectorized over channels, computed once
    // for all output channels.
    depthwise.compute_at(output, yi).vectorize(c, vec);
  }

 private:
  Var c{"c"}, k{"k"}, x{"x"}, y{"y"};
  RDom rc;
  Func depthwise{"depthwise"}, pointwise{"pointwise"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseSeparable, ktune_depthwise_separable)
