#include "tools/ktune/generated_program.h"

namespace ktune::cli {

const char* generated_buffer_helpers() {
  // Keep max_error in step with subgraphs/compare.h (the 1% floor of the denominator).
  return R"(// Shapes are outermost first; Halide buffers innermost first, so dimensions are reversed.
Buffer<float> make(std::vector<int> shape) {
  std::reverse(shape.begin(), shape.end());
  return Buffer<float>(shape);
}

// Largest |out - ref| / max(|ref|, 1% of max |ref|); infinity for NaN.
double max_error(const Buffer<float>& got, const Buffer<float>& want) {
  double max_ref = 0, worst = 0;
  for (size_t i = 0; i < want.number_of_elements(); ++i) max_ref = std::max(max_ref, std::fabs(double(want.data()[i])));
  for (size_t i = 0; i < want.number_of_elements(); ++i) {
    const double err = std::fabs(double(got.data()[i]) - double(want.data()[i])) /
                       std::max(std::fabs(double(want.data()[i])), 0.01 * max_ref);
    worst = std::max(worst, std::isnan(err) ? INFINITY : err);
  }
  return worst;
}

)";
}

std::string shape_initializer(const subgraphs::Shape& shape) {
  std::string s = "{";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "}";
}

}  // namespace ktune::cli
