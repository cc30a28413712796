#include "kernels/generated_program.h"

#include <cstdio>
#include <cstdlib>

#include "subgraphs/compare.h"

namespace ktune::kernels {

const char* generated_buffer_helpers() {
  // Keep max_error in step with subgraphs/compare.h (floats relative to the output's largest
  // value, exact integers) and the half conversions with subgraphs/dtype.h.
  return R"(// Shapes are outermost first; Halide buffers innermost first, so dimensions are reversed.
template <typename T>
Buffer<T> make(std::vector<int> shape, std::vector<int> mins, char kind) {
  std::reverse(shape.begin(), shape.end());
  std::reverse(mins.begin(), mins.end());
  Buffer<T> b(shape);
  b.set_min(mins);
  if (kind == 'h') b.raw_buffer()->type = halide_type_t(halide_type_float, 16);
  if (kind == 'b') b.raw_buffer()->type = halide_type_t(halide_type_bfloat, 16);
  return b;
}

template <typename T>
bool read_file(Buffer<T>& b, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(b.size_in_bytes()));
  return static_cast<bool>(in);
}

double half_value(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) return sign * std::ldexp(double(m), -24);
  if (e == 0x1f) return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(double(1024 + m), e - 25);
}

double bf16_value(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <typename T>
double element_value(T v, char kind) {
  if (kind == 'h') return half_value(static_cast<uint16_t>(v));
  if (kind == 'b') return bf16_value(static_cast<uint16_t>(v));
  return double(v);
}

// Floats: largest |out - ref| / max |ref|. Integers: largest |out - ref|.
// Infinity for NaN.
template <typename T>
double max_error(const Buffer<T>& got, const Buffer<T>& want, char kind) {
  double max_ref = 0, worst = 0;
  const size_t n = want.number_of_elements();
  if (kind != 'i') {
    for (size_t i = 0; i < n; ++i) max_ref = std::max(max_ref, std::fabs(element_value(want.data()[i], kind)));
  }
  for (size_t i = 0; i < n; ++i) {
    const double g = element_value(got.data()[i], kind), w = element_value(want.data()[i], kind);
    const double err = kind == 'i' ? std::fabs(g - w) : std::fabs(g - w) / std::max(max_ref, 1e-300);
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

std::string buffer_definition(const std::string& var, const subgraphs::TensorInfo& t) {
  const std::string c = subgraphs::c_type_name(t.dtype);
  return "Buffer<" + c + "> " + var + " = make<" + c + ">(" + shape_initializer(t.shape) + ", " +
         shape_initializer(t.mins_or_zero()) + ", '" + error_kind(t.dtype) + "')";
}

KernelCallText kernel_call_text(const subgraphs::Subgraph& subgraph, const std::vector<std::string>& params,
                                const std::string& dir, const std::string& load_extra, const std::string& indent) {
  KernelCallText text;
  const auto add_arg = [&](const std::string& a) { text.args += (text.args.empty() ? "" : ", ") + a; };
  const auto add_load = [&](const std::string& var, const std::string& file) {
    text.loads += (text.loads.empty() ? "" : " && ") + ("load(" + var + ", " + dir + file + "\"" + load_extra + ")");
  };
  size_t i = 0;
  for (const subgraphs::TensorInfo& t : subgraph.inputs()) {
    const std::string& param = params[i++];
    text.definitions += indent + buffer_definition("t_" + param, t) + ";\n";
    add_load("t_" + param, data_file(param, t.dtype, false));
    add_arg("t_" + param);
  }
  for (const subgraphs::ScalarInfo& s : subgraph.scalars()) add_arg(scalar_literal(s));
  for (const subgraphs::TensorInfo& t : subgraph.outputs()) {
    const std::string& param = params[i++];
    const std::string v = "t_" + param;
    text.definitions += indent + buffer_definition(v, t) + ";\n" + indent + buffer_definition(v + "_ref", t) + ";\n";
    add_load(v + "_ref", data_file(param, t.dtype, true));
    add_arg(v);
    char tolerance[32];
    std::snprintf(tolerance, sizeof tolerance, "%g", subgraphs::tolerance_of(t.dtype));
    text.checks += indent + "{\n" + indent + "  const double e = max_error(" + v + ", " + v + "_ref, '" +
                   error_kind(t.dtype) + "');\n" + indent + "  err = std::max(err, e);\n" + indent + "  within &= e <= " +
                   tolerance + ";\n" + indent + "}\n";
  }
  return text;
}

char error_kind(subgraphs::DType dtype) {
  if (dtype == subgraphs::DType::kF16) return 'h';
  if (dtype == subgraphs::DType::kBF16) return 'b';
  return subgraphs::is_float(dtype) ? 'f' : 'i';
}

std::string data_file(const std::string& param, subgraphs::DType dtype, bool reference) {
  return param + (reference ? ".ref." : ".") + subgraphs::to_string(dtype);
}

std::string scalar_literal(const subgraphs::ScalarInfo& s) {
  char bits[32];
  if (s.dtype == subgraphs::DType::kF16 || s.dtype == subgraphs::DType::kBF16) {
    // C has no half type: the bit pattern, which is how the kernel takes it.
    const float v = static_cast<float>(s.value);
    std::snprintf(bits, sizeof bits, "uint16_t(0x%04x)",
                  s.dtype == subgraphs::DType::kF16 ? subgraphs::float_to_half_bits(v) : subgraphs::float_to_bf16_bits(v));
    return bits;
  }
  if (s.dtype == subgraphs::DType::kBool) return s.value != 0 ? "true" : "false";
  char buf[64];
  std::snprintf(buf, sizeof buf, subgraphs::is_float(s.dtype) ? "%.17g" : "%.0f", s.value);
  return subgraphs::c_type_name(s.dtype) + "(" + buf + ")";
}

ProgramCompiler program_compiler_for(const std::string& halide_target) {
#if defined(__aarch64__)
  const bool cross = false;
#else
  const bool cross = halide_target.rfind("arm-64", 0) == 0;
#endif
  const char* env = std::getenv(cross ? "KTUNE_AARCH64_CXX" : "CXX");
  ProgramCompiler c;
  c.cross = cross;
  c.cxx = env && *env ? env : cross ? "aarch64-linux-gnu-g++" : "c++";
  c.flags = cross ? "-static" : "";
  return c;
}

}  // namespace ktune::kernels
