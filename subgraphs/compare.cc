#include "subgraphs/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace ktune::subgraphs {

Comparison compare_outputs(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  Comparison c;
  if (got.size() != want.size()) {
    c.max_error = std::numeric_limits<double>::infinity();
    return c;
  }
  for (size_t o = 0; o < got.size(); ++o) {
    if (got[o].shape != want[o].shape || got[o].data.size() != want[o].data.size()) {
      c.max_error = std::numeric_limits<double>::infinity();
      c.worst_output = o;
      return c;
    }
    double scale = 0;
    for (float v : want[o].data) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    const double floor = std::max(0.01 * scale, std::numeric_limits<double>::min());
    for (size_t i = 0; i < got[o].data.size(); ++i) {
      const double g = got[o].data[i], w = want[o].data[i];
      double err = std::fabs(g - w) / std::max(std::fabs(w), floor);
      if (std::isnan(err) || std::isinf(g) != std::isinf(w)) err = std::numeric_limits<double>::infinity();
      if (std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0)) err = 0;
      if (c.worst_index < 0 || err > c.max_error) {
        c.max_error = err;
        c.worst_output = o;
        c.worst_index = static_cast<int64_t>(i);
        c.got = g;
        c.want = w;
      }
    }
  }
  return c;
}

std::string Comparison::describe() const {
  char buf[160];
  if (worst_index < 0 && std::isinf(max_error)) {
    std::snprintf(buf, sizeof(buf), "output %zu has the wrong number or shape of elements", worst_output);
  } else if (passed()) {
    std::snprintf(buf, sizeof(buf), "max relative error %.2e", max_error);
  } else {
    std::snprintf(buf, sizeof(buf), "max relative error %.2e at output %zu element %lld (got %.6g, want %.6g)",
                  max_error, worst_output, static_cast<long long>(worst_index), got, want);
  }
  return buf;
}

}  // namespace ktune::subgraphs
