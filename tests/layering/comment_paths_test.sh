#!/bin/bash
# The comment-path check (cmake/check_comment_paths.cmake): the source tree passes it, and
# trees whose comments name a missing file (a path, a path relative to the library, a bare
# name, in C++ and in CMake) each fail it, naming the file and the name; placeholders and
# files that exist pass.
set -u
source_dir="$1"
check="$source_dir/cmake/check_comment_paths.cmake"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake -DKTUNE_ROOT="$source_dir" -P "$check" >"$work/tree.log" 2>&1 || { cat "$work/tree.log"; fail "the source tree names missing files"; }

# make_tree NAME: a small tree (a scheduler header, an internal one, a README, a docs page).
make_tree() {
  local root="$work/$1"
  mkdir -p "$root/scheduler/internal" "$root/cmake" "$root/docs"
  echo '# Usage' >"$root/docs/usage.md"
  echo '// The space.' >"$root/scheduler/space.h"
  echo '// A walk.' >"$root/scheduler/internal/walk.h"
  echo '# ktune' >"$root/README.md"
  echo "$root"
}

# expect_violation NAME FILE TEXT EXPECTED: FILE holding TEXT must fail the check naming EXPECTED.
expect_violation() {
  local name="$1" file="$2" text="$3" expected="$4"
  local root
  root=$(make_tree "$name")
  printf '%s\n' "$text" >"$root/$file"
  if cmake -DKTUNE_ROOT="$root" -P "$check" >"$root.log" 2>&1; then
    fail "$name: passed the check"
  fi
  grep -qF "$expected" "$root.log" || { cat "$root.log"; fail "$name: the message does not say \"$expected\""; }
}

expect_violation path scheduler/apply.cc '// As scheduler/spaces.h samples them.' \
  'scheduler/apply.cc: names scheduler/spaces.h, which is not in the repository'
expect_violation relative scheduler/apply.cc '// The walk of internal/walker.h.' \
  'names internal/walker.h'
expect_violation bare scheduler/apply.cc 'int x;  // see json_io.cc' 'names json_io.cc'
expect_violation markdown scheduler/apply.cc '// Described in docs/design.md.' 'names docs/design.md'
expect_violation cmake cmake/rules.cmake '# Read by check_layers.cmake on every build.' \
  'cmake/rules.cmake: names check_layers.cmake'

# Allowed: files that exist (from the root, beside the file, in its library) or are generated
# from a template there, placeholders, files ktune writes, and headers from elsewhere.
root=$(make_tree allowed)
echo '// A template.' >"$root/scheduler/table.cc.in"
cat >"$root/scheduler/apply.cc" <<'CC'
// scheduler/space.h, internal/walk.h, space.h, walk.h and README.md exist; scheduler/table.cc
// and table.cc are generated from their .in template.
// DIR/manifest.json, RESULTS.json, <name>.schedule.h, *.json, test_data/check.cc, gemm.json
// and Halide.h are not the repository's files.
CC
cmake -DKTUNE_ROOT="$root" -P "$check" >"$work/allowed.log" 2>&1 || { cat "$work/allowed.log"; fail "allowed names were refused"; }
echo "ok: the comment-path check passes the tree and refuses 5 kinds of missing file"
