#!/usr/bin/env bash
# Prints the lines of C++ source (.h, .cc) in each library folder and tools/, with each
# folder's share of the total: the figure that keeps tools/ thin (docs/design.md).
# Tests and build outputs are not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
FOLDERS=(common targets subgraphs scheduler measure tuning_db schedule_store cost_model report search cluster kernels bench tools)
total=0
declare -A lines
for folder in "${FOLDERS[@]}"; do
  [ -d "$folder" ] || continue
  n=$(find "$folder" -name '*.h' -o -name '*.cc' | xargs cat | wc -l)
  lines[$folder]=$n
  total=$((total + n))
done
for folder in "${FOLDERS[@]}"; do
  [ -n "${lines[$folder]:-}" ] || continue
  awk -v f="$folder" -v n="${lines[$folder]}" -v t="$total" 'BEGIN { printf "%-16s %6d %5.1f%%\n", f, n, 100 * n / t }'
done
echo "total            $total"
