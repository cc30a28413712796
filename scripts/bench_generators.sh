#!/usr/bin/env bash
# Tunes each test Generator of tests/generators for the same budget, one after the other,
# then benches them all in one interleaved `ktune bench` (ktune, ktune's heuristic, the
# Generator's own hand schedule, Adams2019) and prints the tuning statistics per Generator
# (trials, ok fraction, median build time per candidate, trials in the first 2 minutes).
#   bash scripts/bench_generators.sh [BUDGET_PER_GENERATOR] [DB]   (defaults: 5m, generators.db)
# Figures use HL_NUM_THREADS=2 and --threads 2 (the whole of a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-5m}"
db="${2:-generators.db}"
# The first six: the round-1 set; the rest: image pipelines with an expert's strips and
# sliding windows as their hand schedules. KTUNE_BENCH_GENERATORS="a b" picks others.
read -r -a names <<< "${KTUNE_BENCH_GENERATORS:-raw_denoise pyramid halo_blur histogram recursive_filter tuple_stats blur_chain corner_response stencil_chain running_max camera_raw bilateral_grid depthwise_separable}"

bash scripts/build.sh ktune ktune_real_generators
ktune=./build/tools/ktune
lib=build/tests/generators/libktune_real_generators.so
export HL_NUM_THREADS=2

generator_flags=()
for name in "${names[@]}"; do
  echo "== tuning ktune_$name for $budget" >&2
  "$ktune" tune --generator "$lib:ktune_$name" --db "$db" --budget "$budget" --threads 2
  generator_flags+=(--generator "$lib:ktune_$name")
done

"$ktune" db stats --db "$db"
"$ktune" bench "${generator_flags[@]}" --db "$db" --threads 2 \
  --methods ktune,ktune-heuristic,hand,Adams2019 --format markdown
