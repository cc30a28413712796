#!/usr/bin/env bash
# ktune's heuristic with its windows' rows padded to a cache line (row_alignment) against
# the same schedule unpadded, in one interleaved `ktune bench` per Generator: the unpadded
# schedule runs as the expert. Prints the two medians and their ratio per Generator.
#
#   bash bench/padded_rows.sh [--rounds 5] LIB:NAME ...
#
# HL_NUM_THREADS=2, --threads 2. Work files and bench logs go to build/padded_rows/.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5
generators=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "padded_rows.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) generators+=("$1"); shift ;;
  esac
done
[ ${#generators[@]} -gt 0 ] || { echo "padded_rows.sh: name at least one Generator as LIB:NAME" >&2; exit 2; }
ktune=$PWD/build/tools/ktune
work=$PWD/build/padded_rows
mkdir -p "$work/expert"
export HL_NUM_THREADS=2
echo "| Generator | heuristic, padded ms | unpadded ms | unpadded / padded |"
echo "|---|---|---|---|"
for g in "${generators[@]}"; do
  name=${g##*:}
  "$ktune" space --generator "$g" --named heuristic --format json |
    python3 -c 'import json,sys
d = json.load(sys.stdin)
for f in d["funcs"]:
    f["compute"].pop("row_alignment", None)
json.dump(d, sys.stdout)' > "$work/expert/$name.json"
  "$ktune" bench --generator "$g" --db "$work/bench.db" --threads 2 --rounds "$rounds" \
    --methods ktune-heuristic,expert --expert-dir "$work/expert" --format json > "$work/$name.json" 2> "$work/$name.log"
  python3 - "$work/$name.json" "$name" <<'PY'
import json, sys
rows = {m["method"]: m for m in json.load(open(sys.argv[1]))["subgraphs"][0]["methods"]}
padded, plain = rows["ktune-heuristic"], rows["expert"]
if padded.get("status") != "ok" or plain.get("status") != "ok":
    print(f"| {sys.argv[2]} | {padded.get('status')} | {plain.get('status')} | - |")
else:
    p, u = padded["median_ns"] / 1e6, plain["median_ns"] / 1e6
    print(f"| {sys.argv[2]} | {p:.3g} | {u:.3g} | {u / p:.2f}x |")
PY
done
