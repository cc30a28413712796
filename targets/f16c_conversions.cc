// f16 <-> f32 conversions with F16C's vcvtph2ps and vcvtps2ph. On x86, Halide 14 keeps f16
// values as 16-bit integers and converts them with a dozen vector integer instructions per
// vector (float16_to_float32 and float32_to_float16, which its code generator calls through
// the PLT), so an f16 kernel spends most of its time converting. ktune replaces both, like
// get_target_options (llvm_target_options.cc): where converts_f16_with_f16c holds for the
// code generator's target, a conversion of 4 lanes or more becomes a call that Halide's
// code generator maps to LLVM's 512-bit conversion intrinsic; everything else goes to
// Halide's own. The intrinsic is declared in each module by the replacement of
// CodeGen_LLVM::init_codegen, which every LLVM compile calls before generating code, and
// which records, per thread, whether that compile converts with F16C.
#include <string>
#include <vector>

#include "Halide.h"
#include "targets/cpu_codegen.h"
#include "targets/halide_next_definition.h"

namespace {

using Halide::Expr;
using Halide::Float;
using Halide::Int;
using Halide::UInt;

constexpr const char* kHalideInitCodegen =
    "_ZN6Halide8Internal12CodeGen_LLVM12init_codegenERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEb";
constexpr const char* kHalideFloat16ToFloat32 = "_ZN6Halide8Internal18float16_to_float32ENS_4ExprE";
constexpr const char* kHalideFloat32ToFloat16 = "_ZN6Halide8Internal18float32_to_float16ENS_4ExprE";

// The names the code generator resolves the calls by (call_overloaded_intrin).
constexpr const char* kToFloat32 = "ktune_f16_to_f32";
constexpr const char* kToFloat16 = "ktune_f32_to_f16";

constexpr int kIntrinsicLanes = 16;
constexpr int kFewestLanes = 4;
constexpr int kAllLanesMask = 0xffff;
constexpr int kRoundToNearestEven = 0;  // vcvtps2ph's immediate; as Halide's own rounding
constexpr int kCurrentRounding = 4;     // vcvtph2ps's immediate: exact, no rounding asked

// Whether the LLVM compile running on this thread converts with F16C.
thread_local bool converting_with_f16c = false;

using HalideInitCodegen = void (*)(Halide::Internal::CodeGen_LLVM*, const std::string&, bool);
using HalideConversion = Expr (*)(Expr);

bool use_f16c_for(const Expr& value) { return converting_with_f16c && value.type().lanes() >= kFewestLanes; }

}  // namespace

namespace Halide::Internal {

void CodeGen_LLVM::init_codegen(const std::string& name, bool any_strict_float) {
  static const auto halide_init_codegen = ktune::targets::halide_next_definition<HalideInitCodegen>(kHalideInitCodegen);
  halide_init_codegen(this, name, any_strict_float);
  converting_with_f16c = ktune::targets::converts_f16_with_f16c(get_target().to_string());
  if (!converting_with_f16c) return;
  // llvm.x86.avx512.mask.vcvtph2ps.512(<16 x i16> bits, <16 x float> passthru, i16 mask, i32 rounding)
  declare_intrin_overload(kToFloat32, Float(32, kIntrinsicLanes), "llvm.x86.avx512.mask.vcvtph2ps.512",
                          {UInt(16, kIntrinsicLanes), Float(32, kIntrinsicLanes), UInt(16), Int(32)});
  // llvm.x86.avx512.mask.vcvtps2ph.512(<16 x float> value, i32 rounding, <16 x i16> passthru, i16 mask)
  declare_intrin_overload(kToFloat16, UInt(16, kIntrinsicLanes), "llvm.x86.avx512.mask.vcvtps2ph.512",
                          {Float(32, kIntrinsicLanes), Int(32), UInt(16, kIntrinsicLanes), UInt(16)});
}

Expr float16_to_float32(Expr value) {
  static const auto halide_conversion = ktune::targets::halide_next_definition<HalideConversion>(kHalideFloat16ToFloat32);
  if (!use_f16c_for(value)) return halide_conversion(value);
  const int lanes = value.type().lanes();
  return Call::make(Float(32, lanes), kToFloat32,
                    {reinterpret(UInt(16, lanes), value), make_zero(Float(32)), make_const(UInt(16), kAllLanesMask),
                     make_const(Int(32), kCurrentRounding)},
                    Call::PureExtern);
}

Expr float32_to_float16(Expr value) {
  static const auto halide_conversion = ktune::targets::halide_next_definition<HalideConversion>(kHalideFloat32ToFloat16);
  if (!use_f16c_for(value)) return halide_conversion(value);
  const int lanes = value.type().lanes();
  const Expr bits = Call::make(UInt(16, lanes), kToFloat16,
                               {value, make_const(Int(32), kRoundToNearestEven), make_zero(UInt(16)),
                                make_const(UInt(16), kAllLanesMask)},
                               Call::PureExtern);
  return reinterpret(Float(16, lanes), bits);
}

}  // namespace Halide::Internal
