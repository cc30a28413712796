// Runs the exported kernels on the seeded inputs `ktune export --test-data` wrote and
// compares their outputs with the reference outputs, with ktune's rule: the error of an
// element is |out - ref| / max(|ref|, 1% of max |ref|) and must stay within 1e-3. Halide
// errors come back as return codes (the error handler is replaced so they do not abort);
// a call with a too-small input buffer must fail that way. Exit 0 when all is well.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "HalideBuffer.h"
#include "consumer_kernels.h"

namespace {

using Halide::Runtime::Buffer;

std::string last_error;

void record_error(void*, const char* message) { last_error = message; }

// A float32 buffer with shape `shape` (outermost first), loaded from a raw file when given.
// Halide buffers are innermost first, so the dimensions are reversed.
Buffer<float> buffer(std::vector<int> shape, const std::string& file = "") {
  std::reverse(shape.begin(), shape.end());
  Buffer<float> b(shape);
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(b.size_in_bytes()));
    if (!in) std::fprintf(stderr, "cannot read %s\n", file.c_str()), std::exit(1);
  }
  return b;
}

bool matches(const char* what, const Buffer<float>& got, const Buffer<float>& want) {
  double max_ref = 0;
  for (size_t i = 0; i < want.number_of_elements(); ++i) max_ref = std::max(max_ref, std::fabs(double(want.data()[i])));
  double worst = 0;
  for (size_t i = 0; i < want.number_of_elements(); ++i) {
    const double err = std::fabs(double(got.data()[i]) - want.data()[i]) / std::max(max_ref, 1e-300);
    worst = std::max(worst, std::isnan(err) ? INFINITY : err);
  }
  std::printf("%s: max error %.3g of the largest value\n", what, worst);
  return worst <= 1e-3;
}

}  // namespace

int main() {
  halide_set_error_handler(record_error);
  const std::string mm = std::string(TEST_DATA_DIR) + "/ktune_tiny_matmul/";
  const std::string sm = std::string(TEST_DATA_DIR) + "/ktune_tiny_softmax/";
  bool ok = true;

  Buffer<float> a = buffer({64, 96}, mm + "a.f32"), b = buffer({96, 128}, mm + "b.f32");
  Buffer<float> c = buffer({64, 128}), c_ref = buffer({64, 128}, mm + "c.ref.f32");
  if (int rc = ktune_tiny_matmul(a, b, c); rc != 0) {
    std::printf("ktune_tiny_matmul returned %d: %s\n", rc, last_error.c_str());
    return 1;
  }
  ok &= matches("ktune_tiny_matmul", c, c_ref);

  Buffer<float> x = buffer({64, 256}, sm + "x.f32");
  Buffer<float> y = buffer({64, 256}), y_ref = buffer({64, 256}, sm + "y.ref.f32");
  if (int rc = ktune_tiny_softmax(x, y); rc != 0) {
    std::printf("ktune_tiny_softmax returned %d: %s\n", rc, last_error.c_str());
    return 1;
  }
  ok &= matches("ktune_tiny_softmax", y, y_ref);

  // Errors are return codes, not aborts: an input buffer smaller than the kernel reads.
  Buffer<float> small = buffer({64, 50});
  last_error.clear();
  const int rc = ktune_tiny_matmul(small, b, c);
  std::printf("too-small input: return code %d (%s)\n", rc, last_error.c_str());
  ok &= rc != 0 && !last_error.empty();

  std::printf(ok ? "all kernels match their references\n" : "MISMATCH\n");
  return ok ? 0 : 1;
}
