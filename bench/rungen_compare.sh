#!/usr/bin/env bash
# ktune's figures against the user's build. For each Generator: tune it (unless the database
# already holds a best for it), build it twice as a user does, through GenGen into static
# libraries, once with ktune's autoscheduler plugin (the tuned schedule) and once with its
# own hand schedule, link each to Halide's RunGen, and time both with RunGen
# (--estimate_all, the fastest of 3 runs before and 3 after the bench). Then `ktune bench` times the same two schedules, and the
# table sets the ratio ktune / hand under RunGen beside the same ratio in ktune bench: the
# bench predicts the user's build when the two agree (within 1.3x either way).
#
#   bash bench/rungen_compare.sh [--db F] [--budget 2m] [--halide-src DIR] [NAME ...]
#
# NAMEs are Generators of tests/generators (default: all of them). With --halide-src, a Halide
# source tree at tag v14.0.0, its apps unsharp and harris are built from there and compared
# too (nothing of them is copied into ktune). HL_NUM_THREADS=2 and --threads 2 throughout.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/public_app_build.sh
db=rungen_compare.db
budget=2m
halide_src=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --halide-src) halide_src="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "rungen_compare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(raw_denoise pyramid halo_blur histogram recursive_filter tuple_stats)

bash scripts/build.sh ktune autoschedule_ktune ktune_real_generators ktune_real_generators_gen ktune_cpu_codegen
ktune=$PWD/build/tools/ktune
plugin=$PWD/build/tools/autoschedule_ktune/libautoschedule_ktune.so
test_lib=$PWD/build/tests/generators/libktune_real_generators.so
test_gen=$PWD/build/tests/generators/ktune_real_generators_gen
work=$PWD/build/rungen_compare
mkdir -p "$work"
export HL_NUM_THREADS=2
# The Generators compile for ktune's target of this CPU: with ktune's LLVM feature choice
# preloaded, they leave out what the CPU lacks, as ktune does (targets/cpu_codegen.h).
codegen=$PWD/build/targets/libktune_cpu_codegen.so
halide_include=/usr/include/halide14
rungen_main=/usr/src/halide14/RunGenMain.cpp
target=$("$ktune" devices --format json |
  python3 -c 'import json,sys; print([d for d in json.load(sys.stdin)["devices"] if d["name"] == "host"][0]["device"]["halide_target"])')

# The fastest of three RunGen runs, in ms.
rungen_ms() {
  local runner=$1 best=""
  for _ in 1 2 3; do
    local s
    s=$("$runner" --estimate_all --benchmarks=all 2>&1 | sed -n 's/.*best case of \([0-9.e+-]*\) sec.*/\1/p' | head -1)
    [ -n "$s" ] || { echo "rungen_compare.sh: no benchmark line from $runner" >&2; exit 1; }
    best=$(python3 -c "print(min(float('$s')*1e3, float('${best:-inf}')))")
  done
  echo "$best"
}

# Builds NAME with GenGen (extra GenGen arguments follow) and links it to RunGen.
build_runner() {
  local gen=$1 name=$2 out=$3
  shift 3
  mkdir -p "$out"
  LD_PRELOAD="$codegen" "$gen" -g "$name" -e static_library,h,registration -o "$out" target="$target" "$@"
  g++ -O2 -std=c++17 -DHALIDE_NO_PNG -DHALIDE_NO_JPEG -I"$halide_include" -I"$out" "$rungen_main" \
    "$out/$name.registration.cpp" "$out/$name.a" -o "$out/run" -lpthread -ldl
}

rows=()
compare() {
  local lib=$1 gen=$2 name=$3 dir="$work/$3"
  if ! "$ktune" query --db "$db" --device host --workload "$name" --format json >/dev/null 2>&1; then
    echo "== tuning $name for $budget" >&2
    "$ktune" tune --generator "$lib:$name" --db "$db" --budget "$budget" --threads 2 >&2
  fi
  KTUNE_DB="$db" KTUNE_FALLBACK_AUTOSCHEDULER=none build_runner "$gen" "$name" "$dir/ktune" \
    -p "$plugin" -s Ktune auto_schedule=true 2>"$dir.plugin.log" || { cat "$dir.plugin.log" >&2; exit 1; }
  build_runner "$gen" "$name" "$dir/hand"
  # RunGen before and after the bench, the fastest kept: the machine's speed drifts over
  # minutes, and both tools should see the same minutes.
  local k h
  k=$(rungen_ms "$dir/ktune/run")
  h=$(rungen_ms "$dir/hand/run")
  "$ktune" bench --generator "$lib:$name" --db "$db" --methods ktune,hand --threads 2 --format json > "$dir.bench.json"
  k=$(python3 -c "print(min($k, $(rungen_ms "$dir/ktune/run")))")
  h=$(python3 -c "print(min($h, $(rungen_ms "$dir/hand/run")))")
  rows+=("$(python3 bench/rungen_compare_row.py "$name" "$k" "$h" "$dir.bench.json")")
}

for name in "${names[@]}"; do compare "$test_lib" "$test_gen" "ktune_$name"; done
if [ -n "$halide_src" ]; then
  for app in unsharp harris; do
    build_public_app "$app" "$halide_src" "$work"
    compare "$work/lib$app.so" "$work/$app.gen" "$app"
  done
fi

echo
echo "| Generator | RunGen ktune ms | RunGen hand ms | RunGen ktune/hand | bench ktune ms | bench hand ms | bench ktune/hand | bench / RunGen |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
