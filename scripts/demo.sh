#!/usr/bin/env bash
# The main job on a small default: installs what is needed, builds ktune, then tunes three
# subgraphs of the public suite for a few minutes into ./ktune-demo.db and prints the
# summary (best time, throughput, trials, speed-up over the heuristic schedule).
# Running it again continues the same tuning run from the database.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ktune autoschedule_ktune
export HL_NUM_THREADS="${HL_NUM_THREADS:-$(nproc)}"
./build/tools/ktune tune bench/suite/bmm_scores.json bench/suite/softmax.json bench/suite/conv3x3_relu.json \
  --db ktune-demo.db --budget "${KTUNE_DEMO_BUDGET:-3m}" --log ktune-demo.log
