#!/usr/bin/env bash
# Builds a separate CMake project whose Halide Generator uses libautoschedule_ktune.so
# (add_halide_library ... AUTOSCHEDULER ktune::Ktune), against a database holding a measured
# schedule for one of its two libraries, and checks both paths:
#   build     write the database, configure and build the project (ctest fixture setup)
#   tuned     the stored schedule's source is in demo_tuned.schedule.h, the outputs are right
#   fallback  the untuned library got Adams2019's schedule and the warning, outputs are right;
#             direct generator runs: no KTUNE_DB, a foreign target, KTUNE_FALLBACK_AUTOSCHEDULER=none
# Paths come from the environment (tests/tools/autoschedule_ktune/CMakeLists.txt sets them).
set -euo pipefail
step="$1"
work="$KTUNE_TEST_WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_in() {  # expect_in FILE TEXT
  grep -qF -- "$2" "$1" || fail "$1 does not contain: $2"
}

case "$step" in
build)
  rm -rf "$work" && mkdir -p "$work"
  "$KTUNE_TEST_DB_WRITER" "$KTUNE_TEST_GENERATOR_LIB:ktune_plugin_demo" "$work/tuning.db" "$work/expected_source.txt" \
    | tee "$work/db.txt"
  cmake -S "$KTUNE_TEST_PROJECT" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DKTUNE_PLUGIN="$KTUNE_PLUGIN" >/dev/null
  KTUNE_DB="$work/tuning.db" cmake --build "$work/build" -j2 2>&1 | tee "$work/build.log"
  ;;
tuned)
  hash=$(sed -n 's/.* schedule \([0-9a-f]*\) .*/\1/p' "$work/db.txt")
  [ -n "$hash" ] || fail "no schedule hash in $work/db.txt"
  schedule="$work/build/demo_tuned.schedule.h"
  expect_in "$schedule" "// ktune: tuned schedule $hash for ktune_plugin_demo"
  expect_in "$schedule" "pipeline.get_func("
  while IFS= read -r line; do
    trimmed="$(echo "$line" | sed 's/^ *//')"
    [ -z "$trimmed" ] || expect_in "$schedule" "$trimmed"
  done < "$work/expected_source.txt"
  expect_in "$work/build.log" "ktune_plugin_demo: tuned schedule $hash"
  # The key the plugin computed inside the Generator is the key `ktune show` gives the same
  # Generator loaded from a shared library.
  key=$("$KTUNE_EXE" show --generator "$KTUNE_TEST_GENERATOR_LIB:ktune_plugin_demo" --format json \
        | sed -n 's/^  "key": "\([0-9a-f]*\)".*/\1/p')
  [ -n "$key" ] || fail "no workload key from ktune show"
  expect_in "$schedule" "workload key $key "
  "$work/build/check_demo" tuned
  ;;
fallback)
  schedule="$work/build/demo_fallback.schedule.h"
  expect_in "$work/build.log" "ktune: warning: no tuned schedule for ktune_plugin_demo"
  expect_in "$work/build.log" "with Adams2019 instead"
  expect_in "$work/build.log" "ktune tune --generator libgens.so:ktune_plugin_demo --param width=200"
  expect_in "$schedule" "// ktune: warning: no tuned schedule for ktune_plugin_demo"
  expect_in "$schedule" "Adams2019"
  "$work/build/check_demo" fallback

  gen="$work/build/demo.generator"
  run_gen() {  # run_gen OUT_DIR TARGET [k=v ...]: the generator with the plugin, only the schedule
    mkdir -p "$1"
    "$gen" -g ktune_plugin_demo -p "$KTUNE_PLUGIN" -s Ktune -e schedule -n demo -o "$1" target="$2" \
      auto_schedule=true "${@:3}"
  }
  # No database named: warning and fallback.
  (unset KTUNE_DB; KTUNE_FALLBACK_AUTOSCHEDULER=Mullapudi2016 run_gen "$work/no_db" host 2> "$work/no_db.log")
  expect_in "$work/no_db.log" "KTUNE_DB is not set"
  expect_in "$work/no_db/demo.schedule.h" "Mullapudi2016"
  # A target that is not this machine: the tuned schedule of the host is not used.
  KTUNE_DB="$work/tuning.db" KTUNE_FALLBACK_AUTOSCHEDULER=Mullapudi2016 run_gen "$work/foreign" x86-64-linux \
    2> "$work/foreign.log"
  expect_in "$work/foreign.log" "which is not this machine"
  expect_in "$work/foreign.log" "KTUNE_DEVICE"
  # No fallback allowed: the build fails and says why.
  if KTUNE_DB="$work/tuning.db" KTUNE_FALLBACK_AUTOSCHEDULER=none run_gen "$work/none" host width=200 \
      2> "$work/none.log"; then
    fail "the generator succeeded with KTUNE_FALLBACK_AUTOSCHEDULER=none and no tuned schedule"
  fi
  expect_in "$work/none.log" "ktune: error: no tuned schedule for ktune_plugin_demo"
  expect_in "$work/none.log" "KTUNE_FALLBACK_AUTOSCHEDULER=none forbids a fallback"
  ;;
*)
  fail "unknown step $step"
  ;;
esac
echo "ok: $step"
