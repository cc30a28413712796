// Element types of the buffers and scalars a subgraph reads and writes, with what the rest
// of ktune needs to know of each without Halide: its size, its range, its name in specs and
// in C++, and exact conversions to and from double (f16 and bf16 included).
//
//   DType t = parse_dtype_name("u8").value();   // DType::kU8
//   bytes_of(t) == 1; to_element(t, 300.0) == 255 (saturated)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::subgraphs {

// Element types. Booleans (Halide's uint1) are stored one per byte as kBool.
enum class DType { kBool, kU8, kI8, kU16, kI16, kU32, kI32, kF16, kBF16, kF32, kF64 };

// Every DType, in declaration order (for tests and error messages).
const std::vector<DType>& all_dtypes();

// "u8", "f32", "bf16", ... (the names specs use).
std::string to_string(DType dtype);
// The C++ element type a generated program declares ("uint8_t", "float", "uint16_t" for
// f16 and bf16 bit patterns).
std::string c_type_name(DType dtype);
// The DType named `name` ("u8" or "uint8", "f32" or "float32", ...); nullopt when unknown.
std::optional<DType> parse_dtype_name(const std::string& name);

// Bytes of one element.
int bytes_of(DType dtype);
bool is_float(DType dtype);    // f16, bf16, f32, f64
bool is_signed(DType dtype);   // signed integers and floats
// Smallest and largest finite values.
double lowest_value(DType dtype);
double highest_value(DType dtype);

// Converts `value` to `dtype` the way a kernel stores a result: floats rounded to nearest
// even (f16 and bf16 included), integers rounded to nearest even and saturated to the
// type's range, NaN stored as 0 for integers. Returns the value the element then holds.
double round_to(DType dtype, double value);

// Writes `value` (converted as round_to does) into the element at `dst`, and reads an
// element back as a double. `dst`/`src` point at bytes_of(dtype) bytes in native order.
void store_element(DType dtype, double value, void* dst);
double load_element(DType dtype, const void* src);

// IEEE half and bfloat16 bit patterns from floats (round to nearest even) and back.
uint16_t float_to_half_bits(float value);
float half_bits_to_float(uint16_t bits);
uint16_t float_to_bf16_bits(float value);
float bf16_bits_to_float(uint16_t bits);

}  // namespace ktune::subgraphs
