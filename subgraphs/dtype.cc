#include "subgraphs/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/check.h"

namespace ktune::subgraphs {
namespace {

struct DTypeRow {
  DType dtype;
  const char* name;
  const char* long_name;
  const char* c_type;
  int bytes;
  bool is_float;
  bool is_signed;
  double lowest;
  double highest;
};

const DTypeRow kRows[] = {
    {DType::kBool, "bool", "bool", "bool", 1, false, false, 0, 1},
    {DType::kU8, "u8", "uint8", "uint8_t", 1, false, false, 0, 255},
    {DType::kI8, "i8", "int8", "int8_t", 1, false, true, -128, 127},
    {DType::kU16, "u16", "uint16", "uint16_t", 2, false, false, 0, 65535},
    {DType::kI16, "i16", "int16", "int16_t", 2, false, true, -32768, 32767},
    {DType::kU32, "u32", "uint32", "uint32_t", 4, false, false, 0, 4294967295.0},
    {DType::kI32, "i32", "int32", "int32_t", 4, false, true, -2147483648.0, 2147483647.0},
    {DType::kF16, "f16", "float16", "uint16_t", 2, true, true, -65504.0, 65504.0},
    {DType::kBF16, "bf16", "bfloat16", "uint16_t", 2, true, true, -3.3895313892515355e38, 3.3895313892515355e38},
    {DType::kF32, "f32", "float32", "float", 4, true, true, -std::numeric_limits<float>::max(),
     std::numeric_limits<float>::max()},
    {DType::kF64, "f64", "float64", "double", 8, true, true, -std::numeric_limits<double>::max(),
     std::numeric_limits<double>::max()},
};

const DTypeRow& row(DType dtype) {
  for (const DTypeRow& r : kRows) {
    if (r.dtype == dtype) return r;
  }
  KTUNE_CHECK(false) << "unknown dtype " << static_cast<int>(dtype);
  return kRows[0];
}

template <typename T>
void store_as(double value, void* dst) {
  const T v = static_cast<T>(value);
  std::memcpy(dst, &v, sizeof(T));
}

template <typename T>
double load_as(const void* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return static_cast<double>(v);
}

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}

float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

// Shifts `mantissa` right by `shift` bits, rounding to nearest even.
uint32_t shift_round_even(uint32_t mantissa, int shift) {
  const uint32_t kept = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

}  // namespace

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all = [] {
    std::vector<DType> v;
    for (const DTypeRow& r : kRows) v.push_back(r.dtype);
    return v;
  }();
  return all;
}

std::string to_string(DType dtype) { return row(dtype).name; }
std::string c_type_name(DType dtype) { return row(dtype).c_type; }

std::optional<DType> parse_dtype_name(const std::string& name) {
  for (const DTypeRow& r : kRows) {
    if (name == r.name || name == r.long_name) return r.dtype;
  }
  return std::nullopt;
}

int bytes_of(DType dtype) { return row(dtype).bytes; }
bool is_float(DType dtype) { return row(dtype).is_float; }
bool is_signed(DType dtype) { return row(dtype).is_signed; }
double lowest_value(DType dtype) { return row(dtype).lowest; }
double highest_value(DType dtype) { return row(dtype).highest; }

double round_to(DType dtype, double value) {
  switch (dtype) {
    case DType::kF64:
      return value;
    case DType::kF32:
      return static_cast<float>(value);
    case DType::kF16:
      return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    case DType::kBF16:
      return bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(value)));
    case DType::kBool:
      return value != 0 && !std::isnan(value) ? 1 : 0;
    default:
      break;
  }
  if (std::isnan(value)) return 0;
  const double r = std::nearbyint(value);  // the default rounding mode: nearest even
  return std::min(std::max(r, lowest_value(dtype)), highest_value(dtype));
}

void store_element(DType dtype, double value, void* dst) {
  const double v = round_to(dtype, value);
  switch (dtype) {
    case DType::kBool: store_as<uint8_t>(v, dst); break;
    case DType::kU8: store_as<uint8_t>(v, dst); break;
    case DType::kI8: store_as<int8_t>(v, dst); break;
    case DType::kU16: store_as<uint16_t>(v, dst); break;
    case DType::kI16: store_as<int16_t>(v, dst); break;
    case DType::kU32: store_as<uint32_t>(v, dst); break;
    case DType::kI32: store_as<int32_t>(v, dst); break;
    case DType::kF16: {
      const uint16_t bits = float_to_half_bits(static_cast<float>(v));
      std::memcpy(dst, &bits, 2);
      break;
    }
    case DType::kBF16: {
      const uint16_t bits = float_to_bf16_bits(static_cast<float>(v));
      std::memcpy(dst, &bits, 2);
      break;
    }
    case DType::kF32: store_as<float>(v, dst); break;
    case DType::kF64: store_as<double>(v, dst); break;
  }
}

double load_element(DType dtype, const void* src) {
  switch (dtype) {
    case DType::kBool: return load_as<uint8_t>(src) != 0 ? 1 : 0;
    case DType::kU8: return load_as<uint8_t>(src);
    case DType::kI8: return load_as<int8_t>(src);
    case DType::kU16: return load_as<uint16_t>(src);
    case DType::kI16: return load_as<int16_t>(src);
    case DType::kU32: return load_as<uint32_t>(src);
    case DType::kI32: return load_as<int32_t>(src);
    case DType::kF16: {
      uint16_t bits;
      std::memcpy(&bits, src, 2);
      return half_bits_to_float(bits);
    }
    case DType::kBF16: {
      uint16_t bits;
      std::memcpy(&bits, src, 2);
      return bf16_bits_to_float(bits);
    }
    case DType::kF32: return load_as<float>(src);
    case DType::kF64: return load_as<double>(src);
  }
  return 0;
}

uint16_t float_to_half_bits(float value) {
  const uint32_t bits = float_bits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const int exponent = static_cast<int>((bits >> 23) & 0xff);
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);  // infinity or NaN
  const int e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;  // overflows to infinity
  if (e <= 0) {                         // a half subnormal, or zero
    if (e < -10) return sign;
    mantissa |= 0x800000;
    return static_cast<uint16_t>(sign | shift_round_even(mantissa, 14 - e));
  }
  // A carry out of the mantissa moves into the exponent, as it should (up to infinity).
  return static_cast<uint16_t>(sign | ((static_cast<uint32_t>(e) << 10) + shift_round_even(mantissa, 13)));
}

float half_bits_to_float(uint16_t bits) {
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  if (exponent == 0x1f) return mantissa ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

uint16_t float_to_bf16_bits(float value) {
  const uint32_t bits = float_bits(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float bf16_bits_to_float(uint16_t bits) { return bits_float(static_cast<uint32_t>(bits) << 16); }

}  // namespace ktune::subgraphs
