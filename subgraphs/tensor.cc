#include "subgraphs/tensor.h"

#include "common/check.h"
#include "common/hash.h"

namespace ktune::subgraphs {

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
  }
  return "?";
}

int64_t element_count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<int64_t> row_major_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

Tensor random_tensor(const Shape& shape, uint64_t seed, double lo, double hi) {
  KTUNE_CHECK(hi > lo) << "empty range [" << lo << ", " << hi << ")";
  Tensor t{shape, std::vector<float>(static_cast<size_t>(element_count(shape)))};
  for (size_t i = 0; i < t.data.size(); ++i) {
    // 53 random bits -> [0, 1).
    const double u = static_cast<double>(mix64(seed, i) >> 11) * (1.0 / 9007199254740992.0);
    t.data[i] = static_cast<float>(lo + (hi - lo) * u);
  }
  return t;
}

RefTensor to_ref(const Tensor& t) {
  return RefTensor{t.shape, std::vector<double>(t.data.begin(), t.data.end())};
}

Tensor to_float(const RefTensor& t) {
  Tensor out{t.shape, std::vector<float>(t.data.size())};
  for (size_t i = 0; i < t.data.size(); ++i) out.data[i] = static_cast<float>(t.data[i]);
  return out;
}

}  // namespace ktune::subgraphs
