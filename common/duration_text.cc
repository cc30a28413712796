#include "common/duration_text.h"

#include <cmath>
#include <cstdio>

namespace ktune {

std::string format_ns(double ns) {
  char buf[32];
  if (ns < 0 || !std::isfinite(ns)) return "-";
  if (ns < 1e3) {
    std::snprintf(buf, sizeof(buf), "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof(buf), "%.1f us", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof(buf), "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f s", ns / 1e9);
  }
  return buf;
}

std::string format_seconds(double s) {
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  } else if (t >= 60) {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", t / 60, t % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%lds", t);
  }
  return buf;
}

}  // namespace ktune
