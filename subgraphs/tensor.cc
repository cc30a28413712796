#include "subgraphs/tensor.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"
#include "common/hash.h"

namespace ktune::subgraphs {

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

std::vector<int64_t> TensorInfo::mins_or_zero() const {
  return mins.empty() ? std::vector<int64_t>(shape.size(), 0) : mins;
}

bool TensorInfo::at_origin() const {
  return std::all_of(mins.begin(), mins.end(), [](int64_t m) { return m == 0; });
}

int64_t TensorInfo::byte_count() const { return element_count(shape) * bytes_of(dtype); }

Tensor::Tensor(Shape s, DType d)
    : shape(std::move(s)), dtype(d), bytes(static_cast<size_t>(element_count(shape) * bytes_of(d)), 0) {}

Tensor::Tensor(Shape s, const std::vector<float>& values) : Tensor(std::move(s), DType::kF32) {
  KTUNE_CHECK(values.size() == size()) << values.size() << " values for shape " << shape_to_string(shape);
  std::copy(values.begin(), values.end(), f32());
}

double Tensor::at(size_t i) const {
  return load_element(dtype, bytes.data() + i * static_cast<size_t>(bytes_of(dtype)));
}

void Tensor::set(size_t i, double value) {
  store_element(dtype, value, bytes.data() + i * static_cast<size_t>(bytes_of(dtype)));
}

float* Tensor::f32() {
  KTUNE_CHECK(dtype == DType::kF32) << "a " << to_string(dtype) << " tensor read as f32";
  return reinterpret_cast<float*>(bytes.data());
}

const float* Tensor::f32() const {
  KTUNE_CHECK(dtype == DType::kF32) << "a " << to_string(dtype) << " tensor read as f32";
  return reinterpret_cast<const float*>(bytes.data());
}

std::vector<float> Tensor::floats() const { return std::vector<float>(f32(), f32() + size()); }

std::pair<double, double> default_input_range(DType dtype) {
  if (is_float(dtype)) return {-1.0, 1.0};
  return {lowest_value(dtype), highest_value(dtype)};
}

Tensor random_tensor(const Shape& shape, uint64_t seed, double lo, double hi, DType dtype) {
  KTUNE_CHECK(hi > lo || (!is_float(dtype) && hi >= lo)) << "empty range [" << lo << ", " << hi << ")";
  Tensor t(shape, dtype);
  const bool integral = !is_float(dtype);
  const double first = integral ? std::max(std::ceil(lo), lowest_value(dtype)) : lo;
  const double last = integral ? std::min(std::floor(hi), highest_value(dtype)) : hi;
  KTUNE_CHECK(last >= first) << "no " << to_string(dtype) << " value in [" << lo << ", " << hi << "]";
  for (size_t i = 0; i < t.size(); ++i) {
    // 53 random bits -> [0, 1).
    const double u = static_cast<double>(mix64(seed, i) >> 11) * (1.0 / 9007199254740992.0);
    t.set(i, integral ? first + std::floor(u * (last - first + 1)) : lo + (hi - lo) * u);
  }
  return t;
}

RefTensor to_ref(const Tensor& t) {
  RefTensor r{t.shape, std::vector<double>(t.size())};
  for (size_t i = 0; i < r.data.size(); ++i) r.data[i] = t.at(i);
  return r;
}

Tensor to_typed(const RefTensor& t, DType dtype) {
  Tensor out(t.shape, dtype);
  for (size_t i = 0; i < t.data.size(); ++i) out.set(i, t.data[i]);
  return out;
}

bool region_inside(const TensorInfo& inner, const TensorInfo& outer) {
  if (inner.shape.size() != outer.shape.size()) return false;
  const std::vector<int64_t> in_min = inner.mins_or_zero(), out_min = outer.mins_or_zero();
  for (size_t a = 0; a < inner.shape.size(); ++a) {
    if (in_min[a] < out_min[a] || in_min[a] + inner.shape[a] > out_min[a] + outer.shape[a]) return false;
  }
  return true;
}

Tensor crop_tensor(const Tensor& t, const TensorInfo& t_info, const TensorInfo& region) {
  KTUNE_CHECK(region_inside(region, t_info)) << "crop_tensor: " << region.name << " lies outside the tensor";
  Tensor out(region.shape, t.dtype);
  const std::vector<int64_t> from_strides = row_major_strides(t.shape);
  const std::vector<int64_t> t_min = t_info.mins_or_zero(), r_min = region.mins_or_zero();
  const size_t element = static_cast<size_t>(bytes_of(t.dtype));
  std::vector<int64_t> index(region.shape.size(), 0);  // position in the region, outermost first
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t from = 0;
    for (size_t a = 0; a < index.size(); ++a) from += (index[a] + r_min[a] - t_min[a]) * from_strides[a];
    std::copy_n(t.bytes.begin() + static_cast<int64_t>(from * element), element, out.bytes.begin() + static_cast<int64_t>(k * element));
    for (size_t a = index.size(); a-- > 0;) {
      if (++index[a] < region.shape[a]) break;
      index[a] = 0;
    }
  }
  return out;
}

}  // namespace ktune::subgraphs
