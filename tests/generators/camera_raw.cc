// A camera pipeline from a 16-bit GRBG Bayer mosaic to 8-bit planar RGB: hot-pixel and
// black-level cleanup on the four colour planes of the 2x2 blocks, an edge-directed demosaic,
// a 3x3 colour matrix and a 1024-entry tone curve computed in the pipeline from two scalars.
// Exercises half-resolution planes interleaved back to full resolution, int16 arithmetic
// between u16 and u8, channel selects and a lookup table indexed by data.
#include <Halide.h>

namespace {

using namespace Halide;

class CameraRaw : public Generator<CameraRaw> {
 public:
  GeneratorParam<int> width{"width", 2048};  // even
  GeneratorParam<int> height{"height", 1536};  // even
  GeneratorParam<int> black_level{"black_level", 256};
  Input<Buffer<uint16_t>> raw{"raw", 2};
  Input<float> gamma{"gamma"};        // of the tone curve's power law
  Input<float> contrast{"contrast"};  // 0: none, 1: a full smoothstep S-curve
  Output<Buffer<uint8_t>> output{"output", 3};  // x, y, channel (r, g, b)

  void generate() {
    // The four planes, c = 0: green on red rows, 1: red, 2: blue, 3: green on blue rows.
    // Mirroring about the edge pixel keeps every sample's colour.
    Func mosaic = BoundaryConditions::mirror_interior(raw);
    planes(x, y, c) = mux(c, {mosaic(2 * x, 2 * y), mosaic(2 * x + 1, 2 * y),
                              mosaic(2 * x, 2 * y + 1), mosaic(2 * x + 1, 2 * y + 1)});

    // Hot pixels: each sample clamped to the range of its four same-colour neighbours.
    Expr n0 = planes(x - 1, y, c), n1 = planes(x + 1, y, c);
    Expr n2 = planes(x, y - 1, c), n3 = planes(x, y + 1, c);
    denoised(x, y, c) = clamp(planes(x, y, c), min(min(n0, n1), min(n2, n3)), max(max(n0, n1), max(n2, n3)));
    // Black level off, 12 bits kept, so that sums of four fit in int16.
    const uint16_t black = (uint16_t)(int)black_level;
    linear(x, y, c) = cast<int16_t>((max(denoised(x, y, c), black) - black) >> 4);
    gr(x, y) = linear(x, y, 0);
    r(x, y) = linear(x, y, 1);
    b(x, y) = linear(x, y, 2);
    gb(x, y) = linear(x, y, 3);

    // Green at red and blue sites, along the direction with the smaller gradient.
    g_at_r(x, y) = directed(gr(x, y), gr(x + 1, y), gb(x, y - 1), gb(x, y));
    g_at_b(x, y) = directed(gb(x - 1, y), gb(x, y), gr(x, y), gr(x, y + 1));
    // Red and blue from the neighbouring colour differences (smooth where green is).
    r_diff(x, y) = r(x, y) - g_at_r(x, y);
    b_diff(x, y) = b(x, y) - g_at_b(x, y);
    r_at_gr(x, y) = gr(x, y) + (r_diff(x - 1, y) + r_diff(x, y)) / 2;
    r_at_gb(x, y) = gb(x, y) + (r_diff(x, y) + r_diff(x, y + 1)) / 2;
    r_at_b(x, y) = g_at_b(x, y) +
                   (r_diff(x - 1, y) + r_diff(x, y) + r_diff(x - 1, y + 1) + r_diff(x, y + 1)) / 4;
    b_at_gr(x, y) = gr(x, y) + (b_diff(x, y - 1) + b_diff(x, y)) / 2;
    b_at_gb(x, y) = gb(x, y) + (b_diff(x, y) + b_diff(x + 1, y)) / 2;
    b_at_r(x, y) = g_at_r(x, y) +
                   (b_diff(x, y - 1) + b_diff(x + 1, y - 1) + b_diff(x, y) + b_diff(x + 1, y)) / 4;

    // Back to full resolution: row 0 of a block is G R, row 1 is B G.
    red(x, y) = quad(r_at_gr, r, r_at_b, r_at_gb);
    green(x, y) = quad(gr, g_at_r, g_at_b, gb);
    blue(x, y) = quad(b_at_gr, b_at_r, b, b_at_gb);

    // Camera RGB (white balance included) to linear sRGB; each row sums to 1.
    Expr cr = cast<float>(red(x, y)), cg = cast<float>(green(x, y)), cb = cast<float>(blue(x, y));
    corrected(x, y, c) = mux(c, {1.72f * cr - 0.55f * cg - 0.17f * cb,
                                 -0.21f * cr + 1.45f * cg - 0.24f * cb,
                                 0.04f * cr - 0.49f * cg + 1.45f * cb});

    // Tone curve over 10 bits: a power law, blended towards a smoothstep for contrast.
    Expr t = cast<float>(i) * (1.0f / 1023.0f);
    Expr lifted = pow(t, 1.0f / gamma);
    Expr s_curve = lifted * lifted * (3.0f - 2.0f * lifted);
    curve(i) = cast<uint8_t>(clamp(255.0f * lerp(lifted, s_curve, contrast) + 0.5f, 0.0f, 255.0f));

    output(x, y, c) = curve(clamp(cast<int32_t>(corrected(x, y, c)) >> 2, 0, 1023));
  }

  void schedule() {
    raw.set_estimates({{0, width}, {0, height}});
    gamma.set_estimate(2.2f);
    contrast.set_estimate(0.4f);
    output.set_estimates({{0, width}, {0, height}, {0, 3}});
    // The output covers whole 2x2 blocks (even min and extent), so Halide knows which row and
    // column of its block each pixel is.
    for (int d : {0, 1}) {
      output.dim(d).set_min(output.dim(d).min() / 2 * 2).set_extent(output.dim(d).extent() / 2 * 2);
    }
    if (auto_schedule) return;

    const int vec = natural_vector_size<int16_t>();
    Var yo, yp;
    curve.compute_root().bound(i, 0, 1024).vectorize(i, natural_vector_size<float>());
    // Strips of 32 rows in parallel; inside, one row of 2x2 blocks (two output rows, unrolled)
    // at a time, the three channels unrolled and a full u8 vector of pixels per store.
    output.bound(c, 0, 3)
        .reorder(c, x, y)
        .split(y, yo, y, 32)
        .split(y, y, yp, 2)
        .reorder(c, x, yp, y, yo)
        .unroll(c)
        .unroll(yp)
        .parallel(yo)
        .vectorize(x, natural_vector_size<uint8_t>());
    // The half-resolution stages slide down each strip, one new row per block row, in
    // buffers of 4 rows that stay in L2. The colour differences are computed once for their
    // three readers; `linear` and the interpolated colours are inlined.
    for (Func f : {planes, denoised}) {
      f.store_at(output, yo).compute_at(output, y);
      f.bound(c, 0, 4).reorder(c, x, y).unroll(c).vectorize(x, vec);
    }
    for (Func f : {g_at_r, g_at_b, r_diff, b_diff}) {
      f.store_at(output, yo).compute_at(output, y).vectorize(x, vec);
    }
    for (Func f : {planes, denoised, g_at_r, g_at_b, r_diff, b_diff}) f.fold_storage(y, 4);
  }

 private:
  // The mean of the pair whose two samples differ less, or of both pairs on a tie.
  static Expr directed(Expr h0, Expr h1, Expr v0, Expr v1) {
    Expr dh = absd(h0, h1), dv = absd(v0, v1);
    Expr gh = (h0 + h1) / 2, gv = (v0 + v1) / 2;
    return select(dh < dv, gh, dv < dh, gv, (gh + gv) / 2);
  }
  // A full-resolution image from the four per-block values at (x/2, y/2).
  Expr quad(Func top_left, Func top_right, Func bottom_left, Func bottom_right) {
    Expr qx = x / 2, qy = y / 2;
    return select(y % 2 == 0, select(x % 2 == 0, top_left(qx, qy), top_right(qx, qy)),
                  select(x % 2 == 0, bottom_left(qx, qy), bottom_right(qx, qy)));
  }

  Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
  Func planes{"planes"}, denoised{"denoised"}, linear{"linear"};
  Func gr{"gr"}, r{"r"}, b{"b"}, gb{"gb"}, g_at_r{"g_at_r"}, g_at_b{"g_at_b"};
  Func r_diff{"r_diff"}, b_diff{"b_diff"}, r_at_gr{"r_at_gr"}, r_at_gb{"r_at_gb"}, r_at_b{"r_at_b"};
  Func b_at_gr{"b_at_gr"}, b_at_gb{"b_at_gb"}, b_at_r{"b_at_r"};
  Func red{"red"}, green{"green"}, blue{"blue"}, corrected{"corrected"}, curve{"curve"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CameraRaw, ktune_camera_raw)
