// ktune's f16 conversions (f16c_conversions.cc): on a target with AVX-512 they compile to
// vcvtph2ps / vcvtps2ph and give, bit for bit, what Halide's own conversion gives on
// numbers (F16C narrows NaN to NaN, Halide 14's own conversion to +inf); on other targets,
// and with KTUNE_F16_IN_SOFTWARE=1, Halide converts as before.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "Halide.h"
#include "targets/cpu_codegen.h"
#include "targets/host_target.h"

namespace ktune::targets {
namespace {

namespace fs = std::filesystem;
using Halide::float16_t;

constexpr int kHalfPatterns = 1 << 16;

// Sets KTUNE_F16_IN_SOFTWARE for one scope.
class SoftwareConversion {
 public:
  SoftwareConversion() { setenv("KTUNE_F16_IN_SOFTWARE", "1", 1); }
  ~SoftwareConversion() { unsetenv("KTUNE_F16_IN_SOFTWARE"); }
};

Halide::Target host() { return Halide::Target(host_halide_target()); }

bool host_converts_with_f16c() { return converts_f16_with_f16c(host_halide_target()); }

// Every f16 bit pattern, widened to f32 by a kernel vectorized by 16 lanes.
Halide::Buffer<float> widen_every_half(const Halide::Target& target) {
  Halide::Buffer<uint16_t> bits(kHalfPatterns);
  for (int i = 0; i < kHalfPatterns; ++i) bits(i) = static_cast<uint16_t>(i);
  Halide::Var x;
  Halide::Func widen("widen");
  widen(x) = Halide::cast<float>(Halide::reinterpret<float16_t>(bits(x)));
  widen.vectorize(x, 16);
  return widen.realize({kHalfPatterns}, target);
}

// f32 values that exercise f16 rounding: ties, the edge of the f16 range, subnormals,
// infinities and NaN, then a sweep; narrowed by a kernel vectorized by 16 lanes.
Halide::Buffer<float> rounding_cases() {
  const float specials[] = {0.0f, -0.0f, 1.0f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65519.0f, 65520.0f,
                            1e6f, 5.96e-8f, 2.98e-8f, 1e-10f, INFINITY, -INFINITY, NAN, -1.5e-5f};
  const int count = 4096;
  Halide::Buffer<float> values(count);
  for (int i = 0; i < count; ++i) {
    values(i) = i < 16 ? specials[i] : std::ldexp(1.0f + (i * 7919 % 4096) / 4096.0f, (i % 48) - 28) * (i % 2 ? -1 : 1);
  }
  return values;
}

Halide::Buffer<uint16_t> narrow(const Halide::Buffer<float>& values, const Halide::Target& target) {
  Halide::Var x;
  Halide::Func narrowed("narrowed");
  narrowed(x) = Halide::reinterpret<uint16_t>(Halide::cast<float16_t>(values(x)));
  narrowed.vectorize(x, 16);
  return narrowed.realize({values.width()}, target);
}

// The assembly of f(x) = f16(f32(in(x)) * 1.5), vectorized by 16 lanes, for `target`.
std::string conversion_assembly(const Halide::Target& target) {
  Halide::ImageParam in(Halide::Float(16), 1, "in");
  Halide::Var x;
  Halide::Func scaled("scaled");
  scaled(x) = Halide::cast<float16_t>(Halide::cast<float>(in(x)) * 1.5f);
  scaled.vectorize(x, 16);
  const fs::path path = fs::temp_directory_path() / ("ktune_f16c_" + std::to_string(getpid()) + ".s");
  scaled.compile_to_assembly(path.string(), {in}, "scaled", target);
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  fs::remove(path);
  return text.str();
}

TEST(ConvertsF16WithF16c, OnlyX86CpusWithAvx512) {
  EXPECT_TRUE(converts_f16_with_f16c("x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"));
  EXPECT_FALSE(converts_f16_with_f16c("x86-64-linux-avx-avx2-f16c-fma-sse41"));
  EXPECT_FALSE(converts_f16_with_f16c("x86-64-linux-avx-avx2-avx512-avx512_skylake-cuda-f16c-fma-sse41"));
  EXPECT_FALSE(converts_f16_with_f16c("arm-64-linux-arm_fp16"));
  SoftwareConversion software;
  EXPECT_FALSE(converts_f16_with_f16c("x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"));
}

TEST(F16cConversions, EveryHalfWidensAsHalidesOwnConversion) {
  if (!host_converts_with_f16c()) GTEST_SKIP() << "this CPU has no AVX-512";
  const Halide::Buffer<float> with_f16c = widen_every_half(host());
  Halide::Buffer<float> in_software;
  {
    SoftwareConversion software;
    in_software = widen_every_half(host());
  }
  int differ = 0;
  for (int i = 0; i < kHalfPatterns; ++i) {
    const float a = with_f16c(i), b = in_software(i);
    const bool same = (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
    if (!same && differ++ < 5) ADD_FAILURE() << "f16 bits " << i << ": F16C gives " << a << ", Halide " << b;
  }
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(with_f16c(0x3c00), 1.0f);  // the widening ran: f16 1.0
}

TEST(F16cConversions, NarrowingRoundsAsHalidesOwnConversion) {
  if (!host_converts_with_f16c()) GTEST_SKIP() << "this CPU has no AVX-512";
  const Halide::Buffer<float> values = rounding_cases();
  const Halide::Buffer<uint16_t> with_f16c = narrow(values, host());
  Halide::Buffer<uint16_t> in_software;
  {
    SoftwareConversion software;
    in_software = narrow(values, host());
  }
  for (int i = 0; i < values.width(); ++i) {
    if (std::isnan(values(i))) continue;
    EXPECT_EQ(with_f16c(i), in_software(i)) << "f32 " << values(i);
  }
  // NaN stays NaN; Halide 14's own conversion makes it +inf (0x7c00).
  EXPECT_TRUE(float16_t::make_from_bits(with_f16c(14)).is_nan()) << with_f16c(14);
  EXPECT_EQ(with_f16c(2), 0x3c00);  // 1 + 2^-11 is a tie: rounds to even, 1.0
  EXPECT_EQ(with_f16c(7), 0x7c00);  // 65520 overflows to +inf
}

TEST(F16cConversions, Avx512CodeUsesTheF16cInstructions) {
  const Halide::Target avx512("x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41");
  const std::string with_f16c = conversion_assembly(avx512);
  EXPECT_NE(with_f16c.find("vcvtph2ps"), std::string::npos);
  EXPECT_NE(with_f16c.find("vcvtps2ph"), std::string::npos);
  SoftwareConversion software;
  EXPECT_EQ(conversion_assembly(avx512).find("vcvtph2ps"), std::string::npos);
}

TEST(F16cConversions, Avx2CodeKeepsHalidesConversion) {
  const std::string avx2 = conversion_assembly(Halide::Target("x86-64-linux-avx-avx2-f16c-fma-sse41"));
  EXPECT_EQ(avx2.find("vcvtph2ps"), std::string::npos);
  EXPECT_NE(avx2.find("vpslld"), std::string::npos);  // Halide's integer conversion shifts the exponent
}

}  // namespace
}  // namespace ktune::targets
