#!/usr/bin/env bash
# Installs ktune from BUILD_DIR into WORK/prefix, writes WORK/tuning.db with tiny_matmul
# tuned (tiny_softmax is left untuned, so it takes the heuristic fallback), then builds and
# runs the consumer project and the exported test_data/check.cc; checks that touching the
# database re-runs the export, and that FALLBACK error fails the build.
#   run_consumer_test.sh BUILD_DIR CONSUMER_DIR EXPORT_TEST_DB DATA_DIR WORK CMAKE
set -euo pipefail
build_dir=$1 consumer=$2 make_db=$3 data=$4 work=$5 cmake=$6
rm -rf "$work"
mkdir -p "$work"

"$cmake" --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/ktune"
"$make_db" "$work/tuning.db" 250000 1000 "$data/tiny_matmul.json"

"$cmake" -S "$consumer" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DKTUNE_TEST_DB="$work/tuning.db" -DKTUNE_TEST_SPECS="$data/tiny_matmul.json;$data/tiny_softmax.json"
"$cmake" --build "$work/build" -j2
"$work/build/consumer"

export_dir="$work/build/consumer_kernels"
manifest="$export_dir/manifest.json"
grep -q '"status": "tuned"' "$manifest"
grep -q '"status": "fallback"' "$manifest"

# The self-check the export writes beside its test data builds and passes, as documented.
c++ -std=c++17 -O2 -I "$export_dir/include" "$export_dir/test_data/check.cc" \
  "$export_dir/libconsumer_kernels.a" -lpthread -ldl -o "$work/check"
"$work/check" "$export_dir/test_data"

# A changed database re-runs the export.
before=$(stat -c %Y "$manifest")
sleep 1
touch "$work/tuning.db"
"$cmake" --build "$work/build" -j2
after=$(stat -c %Y "$manifest")
if [ "$before" = "$after" ]; then
  echo "the export did not re-run after the database changed" >&2
  exit 1
fi
"$work/build/consumer"

# FALLBACK error: the untuned tiny_softmax fails the build, and the log names it.
"$cmake" -S "$consumer" -B "$work/build_strict" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DKTUNE_TEST_DB="$work/tuning.db" -DKTUNE_TEST_SPECS="$data/tiny_matmul.json;$data/tiny_softmax.json" \
  -DKTUNE_TEST_FALLBACK=error >/dev/null
if "$cmake" --build "$work/build_strict" >"$work/strict.log" 2>&1; then
  echo "FALLBACK error did not fail the build" >&2
  exit 1
fi
grep -q "tiny_softmax" "$work/strict.log"
test ! -e "$work/build_strict/consumer_kernels/manifest.json"
echo "cmake package test passed"
