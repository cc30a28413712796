// The ktune version this build stamps on database rows, export manifests and bundles
// (the project version of CMakeLists.txt), beside the Halide version of halide_version.h.
#pragma once

namespace ktune {

// "0.1.0" for this build.
const char* ktune_version();

}  // namespace ktune
