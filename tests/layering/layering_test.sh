#!/bin/bash
# The layering check (cmake/check_layering.cmake): the source tree passes it, and a tree
# with an upward include, another library's internal/ header and a test reaching past its
# library each fail it, naming the file and the include.
set -u
source_dir="$1"
check="$source_dir/cmake/check_layering.cmake"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake -DKTUNE_ROOT="$source_dir" -P "$check" >"$work/tree.log" 2>&1 || { cat "$work/tree.log"; fail "the source tree breaks the layering"; }

# expect_violation NAME FILE TEXT EXPECTED: a tree holding only FILE with TEXT must fail naming EXPECTED.
expect_violation() {
  local name="$1" file="$2" text="$3" expected="$4"
  local root="$work/$name"
  mkdir -p "$root/$(dirname "$file")"
  printf '%s\n' "$text" >"$root/$file"
  if cmake -DKTUNE_ROOT="$root" -P "$check" >"$root.log" 2>&1; then
    fail "$name: passed the check"
  fi
  grep -qF "$expected" "$root.log" || { cat "$root.log"; fail "$name: the message does not say \"$expected\""; }
}

expect_violation upward scheduler/space.cc '#include "search/tuner.h"' \
  'scheduler/space.cc: #include "search/tuner.h": scheduler may not depend on search'
expect_violation sideways tuning_db/rows.cc '#include "scheduler/schedule.h"' \
  'tuning_db may not depend on scheduler'
expect_violation internal kernels/export_plan.cc '#include "measure/internal/child_measure.h"' \
  'internal/ headers are private to measure/'
expect_violation test_upward tests/measure/runner_test.cc '#include "search/tuner.h"' \
  'tests/measure may not depend on search'
# Allowed: a library's own internal/ header from its tests, and a declared dependency.
mkdir -p "$work/allowed/tests/measure" "$work/allowed/search"
echo '#include "measure/internal/child_measure.h"' >"$work/allowed/tests/measure/child_test.cc"
echo '#include "cost_model/features.h"' >"$work/allowed/search/tuner.cc"
cmake -DKTUNE_ROOT="$work/allowed" -P "$check" >"$work/allowed.log" 2>&1 || { cat "$work/allowed.log"; fail "allowed includes were refused"; }
echo "ok: the layering check passes the tree and refuses 4 kinds of wrong include"
