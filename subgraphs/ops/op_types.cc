#include "subgraphs/ops/op_types.h"

#include <algorithm>
#include <cmath>

namespace ktune::subgraphs {

bool integer_product(const std::vector<DType>& inputs) {
  return !inputs.empty() && std::all_of(inputs.begin(), inputs.end(),
                                        [](DType d) { return d == DType::kU8 || d == DType::kI8; });
}

bool all_i32(const std::vector<DType>& inputs) {
  return !inputs.empty() && std::all_of(inputs.begin(), inputs.end(), [](DType d) { return d == DType::kI32; });
}

DType default_storage(const std::vector<DType>& inputs, DType compute) {
  if (compute != DType::kF32) return compute;
  if (inputs.empty()) return DType::kF32;
  const DType first = inputs.front();
  const bool half = first == DType::kF16 || first == DType::kBF16;
  const bool same = std::all_of(inputs.begin(), inputs.end(), [&](DType d) { return d == first; });
  return half && same ? first : DType::kF32;
}

int64_t largest_magnitude(DType dtype) {
  return static_cast<int64_t>(std::max(std::fabs(lowest_value(dtype)), std::fabs(highest_value(dtype))));
}

bool accumulation_fits_i32(int64_t terms, DType a, DType b) {
  const double bound = static_cast<double>(terms) * static_cast<double>(largest_magnitude(a)) *
                       static_cast<double>(largest_magnitude(b));
  return bound <= 2147483647.0;
}

double wrap_to_i32(double value) {
  const int64_t whole = static_cast<int64_t>(value);
  return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(whole))));
}

}  // namespace ktune::subgraphs
