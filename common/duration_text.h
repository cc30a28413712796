// Durations as people read them in progress lines and tables: a kernel's time in the unit
// that fits it, a run's wall-clock time in hours, minutes and seconds.
#pragma once

#include <string>

namespace ktune {

// "1.23 ms", "456.0 us", "2.10 s"; "-" for a negative or non-finite time.
std::string format_ns(double ns);

// "1h02m", "3m05s", "42s".
std::string format_seconds(double s);

}  // namespace ktune
