// A chain of 24 small stencils on a float image (edges repeated): 3x3 weighted sums
// alternating with 5-tap sums, horizontal and vertical in turn, each stage with weights of
// its own. Exercises a long pipeline whose halos add up stage after stage, and a hand
// schedule of many sliding windows in the same strips, cut in two by one stage at root.
#include <Halide.h>

#include <string>
#include <vector>

namespace {

using namespace Halide;

class StencilChain : public Generator<StencilChain> {
 public:
  GeneratorParam<int> width{"width", 1024};
  GeneratorParam<int> height{"height", 768};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Func prev = BoundaryConditions::repeat_edge(input);
    for (int s = 0; s < kStages; s++) {
      Func f("stage_" + std::to_string(s));
      if (s % 2 == 0) {
        // 3x3: corners c, edges e, centre 1 - 4e - 4c.
        const float c = 0.0625f - 0.002f * s, e = 0.125f + 0.001f * s;
        f(x, y) = (1.0f - 4.0f * e - 4.0f * c) * prev(x, y) +
                  e * (prev(x - 1, y) + prev(x + 1, y) + prev(x, y - 1) + prev(x, y + 1)) +
                  c * (prev(x - 1, y - 1) + prev(x + 1, y - 1) + prev(x - 1, y + 1) + prev(x + 1, y + 1));
      } else {
        // 5 taps p q r q p along x (s = 1, 5, ...) or y (s = 3, 7, ...).
        const float p = 0.05f + 0.002f * s, q = 0.25f - 0.003f * s;
        const int dx = s % 4 == 1, dy = 1 - dx;
        f(x, y) = p * (prev(x - 2 * dx, y - 2 * dy) + prev(x + 2 * dx, y + 2 * dy)) +
                  q * (prev(x - dx, y - dy) + prev(x + dx, y + dy)) + (1.0f - 2.0f * p - 2.0f * q) * prev(x, y);
      }
      chain.push_back(f);
      prev = f;
    }
    output(x, y) = prev(x, y);
  }

  void schedule() {
    input.set_estimates({{0, width}, {0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (auto_schedule) return;

    const int vec = natural_vector_size<float>();
    // Strips of 48 rows (16 strips of 768). A window of every stage would recompute about 46
    // rows of halo per strip, so the middle stage is computed whole: each half of the chain
    // then slides down the strips of its own consumer (the middle stage, or the output) and
    // computes about 23 rows of halo. The last stage is inlined into the output.
    const int mid = kStages / 2 - 1;
    output.split(y, y, yi, 48).parallel(y).vectorize(x, vec);
    chain[mid].compute_root().split(y, y, yi, 48).parallel(y).vectorize(x, vec);
    for (int s = 0; s + 1 < kStages; s++) {
      if (s == mid) continue;
      Func consumer = s < mid ? chain[mid] : Func(output);
      chain[s].store_at(consumer, y).compute_at(consumer, yi).vectorize(x, vec);
    }
  }

 private:
  static constexpr int kStages = 24;
  Var x{"x"}, y{"y"}, yi{"yi"};
  std::vector<Func> chain;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(StencilChain, ktune_stencil_chain)
