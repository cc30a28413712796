#include "subgraphs/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace ktune::subgraphs {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The 99th percentile of |want| over a deterministic sample of at most 65536 elements:
// the output's typical scale, which a few ill-conditioned elements do not move.
template <typename At>
double typical_magnitude(size_t n, const At& want_at) {
  const size_t step = std::max<size_t>(1, n / 65536);
  std::vector<double> sample;
  for (size_t i = 0; i < n; i += step) {
    const double m = std::fabs(want_at(i));
    if (std::isfinite(m)) sample.push_back(m);
  }
  if (sample.empty()) return 0;
  const size_t k = sample.size() * 99 / 100;
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(k), sample.end());
  return sample[k];
}

template <typename At>
double largest_magnitude(size_t n, const At& want_at) {
  double scale = 0;
  for (size_t i = 0; i < n; ++i) {
    const double m = std::fabs(want_at(i));
    if (std::isfinite(m)) scale = std::max(scale, m);
  }
  return scale;
}

// The error of one element: relative to `scale` for floats, absolute for integers;
// infinite for a NaN or an infinity where none belongs, 0 for equal infinities.
double element_error(double g, double w, double scale, bool integral) {
  if (std::isinf(g) && std::isinf(w)) return (g > 0) == (w > 0) ? 0 : kInfinity;
  const double diff = std::fabs(g - w);
  if (std::isnan(diff) || std::isinf(g) || std::isinf(w)) return kInfinity;
  return integral ? diff : diff / scale;
}

// An element a correct schedule may still move: for integers through floats, off by exactly
// 1; for floats, within the output's scale yet far from both its own value and the typical
// one (an ill-conditioned element).
bool is_rare(const Comparison& c, double g, double w, double err, bool integral, bool flips_allowed) {
  if (integral) return flips_allowed && err > 0 && err <= 1;
  return err <= c.tolerance && std::fabs(g - w) > c.tolerance * std::max(std::fabs(w), c.typical_scale);
}

// Counts element `i` (its values, error and rarity) into `c`.
void count_element(Comparison& c, size_t i, double g, double w, double err, bool rare) {
  if (err > c.tolerance) ++c.mismatches;
  if (rare && c.rare_elements++ == 0) {
    c.rare_index = static_cast<int64_t>(i);
    c.rare_got = g;
    c.rare_want = w;
  }
  if (c.worst_index < 0 || err > c.max_error) {
    c.max_error = err;
    c.worst_index = static_cast<int64_t>(i);
    c.got = g;
    c.want = w;
  }
}

// The comparison of one output alone.
Comparison compare_one(const Tensor& got, const Tensor& want, bool rounded_from_float) {
  Comparison c;
  c.tolerance = tolerance_of(want.dtype);
  const bool integral = !is_float(want.dtype);
  const bool flips_allowed = rounded_from_float && integral;
  if (flips_allowed) c.tolerance = 1;
  if (got.shape != want.shape || got.dtype != want.dtype || got.size() != want.size()) {
    c.max_error = kInfinity;
    c.mismatches = 1;
    return c;
  }
  c.allowed_rare = static_cast<int64_t>(want.size() / (flips_allowed ? kFlipsPerAllowed : kRareElementsPerAllowed));
  // f32, the common case, read directly; every other type through Tensor::at.
  const float* got_f32 = got.dtype == DType::kF32 ? got.f32() : nullptr;
  const float* want_f32 = want.dtype == DType::kF32 ? want.f32() : nullptr;
  const auto got_at = [&](size_t i) { return got_f32 ? static_cast<double>(got_f32[i]) : got.at(i); };
  const auto want_at = [&](size_t i) { return want_f32 ? static_cast<double>(want_f32[i]) : want.at(i); };
  if (!integral) {
    c.scale = std::max(largest_magnitude(want.size(), want_at), std::numeric_limits<double>::min());
    const double typical = typical_magnitude(want.size(), want_at);
    c.typical_scale = typical > 0 ? typical : 0.01 * c.scale;  // mostly zeros: 1% of the largest
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got_at(i), w = want_at(i);
    const double err = element_error(g, w, c.scale, integral);
    count_element(c, i, g, w, err, is_rare(c, g, w, err, integral, flips_allowed));
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
    c.worst_output = c.rare_output = o;
    mismatches += c.mismatches;
    flips += c.rare_elements;
    allowed += c.allowed_rare;
    // A failing output is worse than any passing one; among equals, the larger error.
    const bool worse = !have_worst || (!c.passed() && result.passed()) ||
                       (c.passed() == result.passed() && c.max_error > result.max_error);
    if (worse) result = c;
    have_worst = true;
  }
  result.mismatches = mismatches;
  result.rare_elements = flips;
  result.allowed_rare = allowed;
  return result;
}

std::string Comparison::describe() const {
  char buf[400];
  const auto n = [](int64_t v) { return static_cast<long long>(v); };
  const bool exact = tolerance == 0, through_float = tolerance == 1;
  if (worst_index < 0 && std::isinf(max_error)) {
    std::snprintf(buf, sizeof(buf), "output %zu has the wrong type, number or shape of elements", worst_output);
  } else if (passed() && through_float && rare_elements > 0) {
    std::snprintf(buf, sizeof(buf), "%lld elements off by 1 (float rounding; %lld allowed)", n(rare_elements), n(allowed_rare));
  } else if (passed() && (exact || through_float)) {
    std::snprintf(buf, sizeof(buf), "exact");
  } else if (passed()) {
    std::snprintf(buf, sizeof(buf), "max relative error %.2e of the output's largest value %.3g%s", max_error, scale,
                  rare_elements > 0 ? "; some ill-conditioned elements further from their own value" : "");
  } else if (rare_elements > allowed_rare && mismatches == 0 && through_float) {
    std::snprintf(buf, sizeof(buf), "%lld elements off by 1, more than the %lld float rounding allows; first at output %zu element %lld (got %.10g, want %.10g)",
                  n(rare_elements), n(allowed_rare), rare_output, n(rare_index), rare_got, rare_want);
  } else if (rare_elements > allowed_rare && mismatches == 0) {
    std::snprintf(buf, sizeof(buf), "%lld elements differ by more than %.0e of max(their value, the output's typical value %.3g), more than the %lld ill-conditioned elements allowed; first at output %zu element %lld (got %.6g, want %.6g)",
                  n(rare_elements), tolerance, typical_scale, n(allowed_rare), rare_output, n(rare_index), rare_got, rare_want);
  } else if (exact || through_float) {
    std::snprintf(buf, sizeof(buf), "%lld elements differ; the largest difference is %.6g at output %zu element %lld (got %.10g, want %.10g)",
                  n(mismatches), max_error, worst_output, n(worst_index), got, want);
  } else {
    std::snprintf(buf, sizeof(buf), "max relative error %.2e of the output's largest value %.3g at output %zu element %lld (got %.6g, want %.6g); %lld elements beyond %.0e",
                  max_error, scale, worst_output, n(worst_index), got, want, n(mismatches), tolerance);
  }
  return buf;
}

}  // namespace ktune::subgraphs
