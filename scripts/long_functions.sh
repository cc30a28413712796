#!/usr/bin/env bash
# Lists every function longer than N lines (default 80) and every source file longer
# than 600 lines in ktune's C++ sources (.h, .cc), tests and build outputs left out.
# A function's length runs from the line its definition starts on to its closing
# brace, as universal-ctags reports them (scripts/setup.sh installs it). Prints nothing
# when every function and file is within its limit, and exits 1 when something is not.
#   scripts/long_functions.sh [max_function_lines] [max_file_lines]
set -euo pipefail
cd "$(dirname "$0")/.."
MAX_FUNCTION="${1:-80}"
MAX_FILE="${2:-600}"

mapfile -t files < <(git ls-files '*.h' '*.cc' | grep -v -E '^(tests|build)/' | sort)
[ ${#files[@]} -gt 0 ] || exit 0

long_functions=$(ctags --languages=C++ --kinds-C++=f --fields=+ne -x \
    --_xformat='%{input} %{line} %{end} %{scope}::%{name}' "${files[@]}" |
  awk -v max="$MAX_FUNCTION" '$3 != "" && $3 - $2 + 1 > max {
      name = $4; sub(/^::/, "", name); gsub(/__anon[0-9a-f]+::/, "", name); sub(/__anon[0-9a-f]+$/, "(lambda)", name)
      printf "function %5d %s:%d %s\n", $3 - $2 + 1, $1, $2, name }' |
  sort -k2,2nr -k3)
long_files=$(wc -l "${files[@]}" | awk -v max="$MAX_FILE" '$2 != "total" && $1 > max {
    printf "file     %5d %s\n", $1, $2 }' | sort -k2,2nr)

[ -z "$long_functions" ] || echo "$long_functions"
[ -z "$long_files" ] || echo "$long_files"
[ -z "$long_functions$long_files" ]
