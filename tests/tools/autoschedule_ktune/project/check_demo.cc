// Runs a library generated from demo_generator.cc on seeded inputs and compares every
// output element with a plain C++ blur. Usage: check_demo tuned|fallback; exit 0 when
// the outputs match.
#include <HalideBuffer.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "demo_fallback.h"
#include "demo_tuned.h"

namespace {

int check(int (*fn)(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*), int width, int height) {
  Halide::Runtime::Buffer<float> input(width + 2, height + 2), gain(height), output(width, height);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  input.for_each_value([&](float& v) { v = dist(rng); });
  gain.for_each_value([&](float& v) { v = dist(rng); });
  if (int rc = fn(input.raw_buffer(), gain.raw_buffer(), output.raw_buffer()); rc != 0) {
    std::fprintf(stderr, "the generated function returned %d\n", rc);
    return 1;
  }
  double max_err = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      double sum = 0;
      for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) sum += input(x + dx, y + dy);
      }
      const double expected = sum * (gain(y) / 9.0);
      max_err = std::max(max_err, std::fabs(expected - output(x, y)));
    }
  }
  std::printf("%dx%d outputs, max abs error %.3g\n", width, height, max_err);
  return max_err < 1e-5 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "tuned") == 0) return check(demo_tuned, 256, 64);
  if (argc == 2 && std::strcmp(argv[1], "fallback") == 0) return check(demo_fallback, 200, 64);
  std::fprintf(stderr, "usage: check_demo tuned|fallback\n");
  return 2;
}
