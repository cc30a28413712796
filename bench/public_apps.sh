#!/usr/bin/env bash
# The six public Halide apps that may serve as an outside benchmark (unsharp, harris,
# stencil_chain, camera_pipe, local_laplacian, bilateral_grid), taken as a new user takes a
# Generator: `ktune show --check`, a short `ktune tune` that must record ok measurements, a
# build through the autoscheduler plugin that must apply the tuned schedule (no fallback),
# and one `ktune bench` of ktune, its heuristic, the app's hand schedule and Adams2019, every
# method of which must run. Prints one row per app; exits 1 if any step failed.
#
#   bash bench/public_apps.sh --halide-src DIR [--budget 2m] [--rounds 1] [--db F] [APP ...]
#
# DIR is a Halide source tree at tag v14.0.0 (its apps/ folder); the apps are built from
# there into build/public_apps/ and never copied into ktune. HL_NUM_THREADS=2, --threads 2.
# local_laplacian runs on input values in [1, 30]: on full-range data its hand schedule
# truncates a lookup index computed in float, and the gate rightly fails it
# (docs/generators.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/public_app_build.sh
db=public_apps.db
budget=2m
rounds=1
halide_src=""
apps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --halide-src) halide_src="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "public_apps.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) apps+=("$1"); shift ;;
  esac
done
[ -n "$halide_src" ] || { echo "public_apps.sh: --halide-src DIR is required (a Halide v14.0.0 source tree)" >&2; exit 2; }
[ ${#apps[@]} -gt 0 ] || apps=(unsharp harris stencil_chain camera_pipe local_laplacian bilateral_grid)

bash scripts/build.sh ktune autoschedule_ktune ktune_cpu_codegen
ktune=$PWD/build/tools/ktune
# The Generators compile for ktune's target of this CPU: with ktune's LLVM feature choice
# preloaded, they leave out what the CPU lacks, as ktune does (targets/cpu_codegen.h).
codegen=$PWD/build/targets/libktune_cpu_codegen.so
plugin=$PWD/build/tools/autoschedule_ktune/libautoschedule_ktune.so
work=$PWD/build/public_apps
export HL_NUM_THREADS=2
target=$("$ktune" devices --format json |
  python3 -c 'import json,sys; print([d for d in json.load(sys.stdin)["devices"] if d["name"] == "host"][0]["device"]["halide_target"])')

# What an app's data needs beyond ktune's defaults: ktune's flags, and the same ranges as the
# plugin reads them (KTUNE_INPUTS), so that it finds the workload tuned on them.
app_args() {
  case "$1" in
    local_laplacian) echo "--input-range input=1,30" ;;
  esac
}
app_plugin_inputs() {
  case "$1" in
    local_laplacian) echo "input=1:30" ;;
  esac
}

failed=0
rows=()
for app in "${apps[@]}"; do
  build_public_app "$app" "$halide_src" "$work"
  lib="$work/lib$app.so"
  out="$work/$app"
  mkdir -p "$out"
  check=ok tune=ok plugin_applied=ok
  read -r -a data <<< "$(app_args "$app")"
  "$ktune" show --generator "$lib:$app" "${data[@]}" --check > "$out/show.txt" 2>&1 && grep -q "^check     ok" "$out/show.txt" || check=FAILED
  "$ktune" tune --generator "$lib:$app" "${data[@]}" --db "$db" --budget "$budget" --threads 2 > "$out/tune.txt" 2>&1 || tune=FAILED
  "$ktune" query --db "$db" --device host --workload "$app" --format json > "$out/best.json" 2>/dev/null &&
    grep -q '"median_ns"' "$out/best.json" || tune=FAILED
  LD_PRELOAD="$codegen" KTUNE_DB="$db" KTUNE_INPUTS="$(app_plugin_inputs "$app")" KTUNE_FALLBACK_AUTOSCHEDULER=none "$work/$app.gen" -g "$app" -p "$plugin" -s Ktune \
    -e static_library,h,schedule -o "$out" target="$target" auto_schedule=true > "$out/plugin.log" 2>&1 &&
    grep -q "// ktune: tuned schedule" "$out/$app.schedule.h" || plugin_applied=FAILED
  "$ktune" bench --generator "$lib:$app" "${data[@]}" --db "$db" --threads 2 --rounds "$rounds" \
    --methods ktune,ktune-heuristic,hand,Adams2019 --format json > "$out/bench.json" 2> "$out/bench.log" || true
  methods=$(python3 bench/bench_methods_summary.py "$out/bench.json")
  case "$check $tune $plugin_applied $methods" in *FAILED*|*failed*|*crash*|*wrong_result*|*timeout*) failed=1 ;; esac
  rows+=("| $app | $check | $tune | $plugin_applied | $methods |")
done

echo
echo "| app | show --check | tune ($budget) | plugin applies the tuned schedule | ktune bench (median) |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "(logs in $work/APP/)"
exit $failed
