#!/usr/bin/env bash
# One Generator of tests/generators end to end, as a user runs it:
#   1. ktune show --check: it loads and runs against its reference, and so does its own
#      (hand) schedule;
#   2. ktune tune --budget 30s (KTUNE_TEST_BUDGET for a Generator that compiles slowly): ok
#      measurements are recorded and the best is queryable;
#   3. the Generator built again with GenGen in another process, with the ktune plugin and
#      KTUNE_FALLBACK_AUTOSCHEDULER=none: the tuned schedule must apply (fresh Func names).
# Paths come from the environment (tests/generators/CMakeLists.txt sets them).
set -euo pipefail
name="$1"
work="$KTUNE_TEST_WORK/$name"
fail() { echo "FAIL: $name: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
export HL_NUM_THREADS=2

"$KTUNE_EXE" show --generator "$KTUNE_GENERATORS:$name" --check > "$work/show.txt" || fail "show --check failed: $(cat "$work/show.txt")"
grep -q "^check     ok" "$work/show.txt" || fail "no passing check in: $(cat "$work/show.txt")"
# The Generator's own schedule is right by definition: the gate must pass it on the seeded data.
if grep -q "^hand      FAILED" "$work/show.txt"; then fail "the gate fails the Generator's own schedule: $(cat "$work/show.txt")"; fi

"$KTUNE_EXE" tune --generator "$KTUNE_GENERATORS:$name" --db "$work/tuning.db" --budget "${KTUNE_TEST_BUDGET:-30s}" > "$work/tune.txt" 2>&1 \
  || fail "tune failed: $(tail -5 "$work/tune.txt")"
"$KTUNE_EXE" query --db "$work/tuning.db" --device host --workload "$name" --format json > "$work/best.json" \
  || fail "no tuned schedule to query"
grep -q '"median_ns"' "$work/best.json" || fail "the best schedule has no timing: $(cat "$work/best.json")"

mkdir -p "$work/plugin"
KTUNE_DB="$work/tuning.db" KTUNE_FALLBACK_AUTOSCHEDULER=none \
  "$KTUNE_GENERATOR_EXE" -g "$name" -p "$KTUNE_PLUGIN" -s Ktune -e static_library,h,schedule -o "$work/plugin" \
  target=host auto_schedule=true 2> "$work/plugin.log" || fail "the plugin build failed: $(cat "$work/plugin.log")"
grep -q "ktune: $name: tuned schedule" "$work/plugin.log" || fail "the plugin did not use the tuned schedule: $(cat "$work/plugin.log")"
grep -q "// ktune: tuned schedule" "$work/plugin/$name.schedule.h" || fail "no tuned schedule in $name.schedule.h"
echo "ok: $name: $(grep -c . "$work/tune.txt") lines of tuning, plugin applied the tuned schedule"
