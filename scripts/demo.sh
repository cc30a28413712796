#!/usr/bin/env bash
# The main job on a small default: installs what is needed, builds ktune, then builds
# every subgraph of the public suite, runs it on seeded inputs and checks it against
# its schedule-independent reference, ending with a table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ktune
export HL_NUM_THREADS="${HL_NUM_THREADS:-$(nproc)}"
./build/tools/ktune show --check bench/suite/*.json
