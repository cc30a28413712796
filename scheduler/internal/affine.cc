#include "scheduler/internal/affine.h"

namespace ktune::scheduler {
namespace {

namespace HI = Halide::Internal;

std::optional<int64_t> constant(const Halide::Expr& e) {
  if (const int64_t* v = HI::as_const_int(e)) return *v;
  if (const uint64_t* v = HI::as_const_uint(e)) return static_cast<int64_t>(*v);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> to_isl_affine(const Halide::Expr& e, const std::map<std::string, std::string>& vars) {
  if (!e.defined() || !(e.type().is_int() || e.type().is_uint())) return std::nullopt;
  if (auto c = constant(e)) return std::to_string(*c);
  if (const auto* v = e.as<HI::Variable>()) {
    auto it = vars.find(v->name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* c = e.as<HI::Cast>()) return to_isl_affine(c->value, vars);
  auto binary = [&](const Halide::Expr& a, const Halide::Expr& b, const char* op) -> std::optional<std::string> {
    auto x = to_isl_affine(a, vars), y = to_isl_affine(b, vars);
    if (!x || !y) return std::nullopt;
    return "(" + *x + " " + op + " " + *y + ")";
  };
  if (const auto* op = e.as<HI::Add>()) return binary(op->a, op->b, "+");
  if (const auto* op = e.as<HI::Sub>()) return binary(op->a, op->b, "-");
  if (const auto* op = e.as<HI::Mul>()) {
    if (auto c = constant(op->a)) {
      auto y = to_isl_affine(op->b, vars);
      if (y) return "(" + std::to_string(*c) + " * " + *y + ")";
    }
    if (auto c = constant(op->b)) {
      auto x = to_isl_affine(op->a, vars);
      if (x) return "(" + std::to_string(*c) + " * " + *x + ")";
    }
    return std::nullopt;
  }
  if (const auto* op = e.as<HI::Div>()) {
    auto c = constant(op->b);
    auto x = to_isl_affine(op->a, vars);
    if (c && *c > 0 && x) return "floor(" + *x + " / " + std::to_string(*c) + ")";
    return std::nullopt;
  }
  if (const auto* op = e.as<HI::Mod>()) {
    auto c = constant(op->b);
    auto x = to_isl_affine(op->a, vars);
    if (c && *c > 0 && x) return "(" + *x + " mod " + std::to_string(*c) + ")";
    return std::nullopt;
  }
  if (const auto* op = e.as<HI::Min>()) {
    auto x = to_isl_affine(op->a, vars), y = to_isl_affine(op->b, vars);
    if (x && y) return "min(" + *x + ", " + *y + ")";
    return std::nullopt;
  }
  if (const auto* op = e.as<HI::Max>()) {
    auto x = to_isl_affine(op->a, vars), y = to_isl_affine(op->b, vars);
    if (x && y) return "max(" + *x + ", " + *y + ")";
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
