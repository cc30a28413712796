// The Halide version ktune is built against, as stamped on every database row it writes and
// compared with stored rows to report stale results (Debian 12's libhalide14-0-dev; its
// headers give no finer version than the major one).
#pragma once

namespace ktune {

inline constexpr const char* kHalideVersion = "14";

}  // namespace ktune
