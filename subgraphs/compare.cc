#include "subgraphs/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace ktune::subgraphs {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The comparison of one output alone.
Comparison compare_one(const Tensor& got, const Tensor& want, bool rounded_from_float) {
  Comparison c;
  c.tolerance = tolerance_of(want.dtype);
  const bool flips_allowed = rounded_from_float && !is_float(want.dtype);
  if (flips_allowed) {
    c.tolerance = 1;
    c.allowed_flips = static_cast<int64_t>(want.size() / 1000);
  }
  if (got.shape != want.shape || got.dtype != want.dtype || got.size() != want.size()) {
    c.max_error = kInfinity;
    c.mismatches = 1;
    return c;
  }
  const bool integral = !is_float(want.dtype);
  // f32, the common case, read directly; every other type through Tensor::at.
  const float* got_f32 = got.dtype == DType::kF32 ? got.f32() : nullptr;
  const float* want_f32 = want.dtype == DType::kF32 ? want.f32() : nullptr;
  const auto got_at = [&](size_t i) { return got_f32 ? static_cast<double>(got_f32[i]) : got.at(i); };
  const auto want_at = [&](size_t i) { return want_f32 ? static_cast<double>(want_f32[i]) : want.at(i); };
  double scale = 0;
  if (!integral) {
    for (size_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::fabs(want_at(i)));
  }
  const double floor = std::max(0.01 * scale, std::numeric_limits<double>::min());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got_at(i), w = want_at(i);
    double err = integral ? std::fabs(g - w) : std::fabs(g - w) / std::max(std::fabs(w), floor);
    if (std::isnan(err) || std::isinf(g) != std::isinf(w)) err = kInfinity;
    if (std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0)) err = 0;
    if (err > c.tolerance) ++c.mismatches;
    if (flips_allowed && err > 0 && err <= 1) ++c.rounding_flips;
    if (c.worst_index < 0 || err > c.max_error) {
      c.max_error = err;
      c.worst_index = static_cast<int64_t>(i);
      c.got = g;
      c.want = w;
    }
  }
  return c;
}

}  // namespace

double tolerance_of(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kF64:
      return kTolerance;
    case DType::kF16:
      return 1e-2;
    case DType::kBF16:
      return 4e-2;
    default:
      return 0;
  }
}

Comparison compare_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                           const std::vector<TensorInfo>& infos) {
  Comparison result;
  if (got.size() != want.size()) {
    result.max_error = kInfinity;
    result.mismatches = 1;
    return result;
  }
  bool have_worst = false;
  int64_t mismatches = 0, flips = 0, allowed = 0;
  for (size_t o = 0; o < got.size(); ++o) {
    Comparison c = compare_one(got[o], want[o], o < infos.size() && infos[o].rounded_from_float);
    c.worst_output = o;
    mismatches += c.mismatches;
    flips += c.rounding_flips;
    allowed += c.allowed_flips;
    // A failing output is worse than any passing one; among equals, the larger error.
    const bool worse = !have_worst || (!c.passed() && result.passed()) ||
                       (c.passed() == result.passed() && c.max_error > result.max_error);
    if (worse) result = c;
    have_worst = true;
  }
  result.mismatches = mismatches;
  result.rounding_flips = flips;
  result.allowed_flips = allowed;
  return result;
}

std::string Comparison::describe() const {
  char buf[200];
  const bool exact = tolerance == 0;
  if (worst_index < 0 && std::isinf(max_error)) {
    std::snprintf(buf, sizeof(buf), "output %zu has the wrong type, number or shape of elements", worst_output);
  } else if (passed() && rounding_flips > 0) {
    std::snprintf(buf, sizeof(buf), "%lld elements off by 1 (float rounding; %lld allowed)",
                  static_cast<long long>(rounding_flips), static_cast<long long>(allowed_flips));
  } else if (passed()) {
    std::snprintf(buf, sizeof(buf), exact || tolerance == 1 ? "exact" : "max relative error %.2e", max_error);
  } else if (rounding_flips > allowed_flips && mismatches == 0) {
    std::snprintf(buf, sizeof(buf), "%lld elements off by 1, more than the %lld float rounding allows; first worst at output %zu element %lld (got %.10g, want %.10g)",
                  static_cast<long long>(rounding_flips), static_cast<long long>(allowed_flips), worst_output,
                  static_cast<long long>(worst_index), got, want);
  } else if (exact || tolerance == 1) {
    std::snprintf(buf, sizeof(buf), "%lld elements differ; the largest difference is %.6g at output %zu element %lld (got %.10g, want %.10g)",
                  static_cast<long long>(mismatches), max_error, worst_output, static_cast<long long>(worst_index), got, want);
  } else {
    std::snprintf(buf, sizeof(buf), "max relative error %.2e at output %zu element %lld (got %.6g, want %.6g)",
                  max_error, worst_output, static_cast<long long>(worst_index), got, want);
  }
  return buf;
}

}  // namespace ktune::subgraphs
