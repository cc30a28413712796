#!/usr/bin/env bash
# Configures and builds ktune into ./build (Release, ccache when installed, 2 jobs).
# Extra arguments are CMake targets to build (default: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${KTUNE_JOBS:-2}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ $# -eq 0 ]; then
  cmake --build build -j"$JOBS"
else
  cmake --build build -j"$JOBS" --target "$@"
fi
