#!/usr/bin/env bash
# Tunes the public suite (bench/suite/) for one budget, then benches it in one interleaved
# `ktune bench` against ktune's heuristic, the expert schedules of bench/expert/, Halide's
# autoschedulers, OpenBLAS and oneDNN, and prints the markdown table, the geometric means and
# the ratios the library-speed goals are stated in (ktune against the best library per
# subgraph, and against Adams2019).
#   bash bench/tune_suite.sh [BUDGET] [DB]   (defaults: 100m, suite.db; the round log is DB with .log)
# Figures use HL_NUM_THREADS=2 and --threads 2 (the whole of a 2-core machine): run it on a
# quiet machine. A second run with the same DB resumes the tuning (the budget is added).
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-100m}"
db="${2:-suite.db}"
bash scripts/build.sh ktune
ktune=./build/tools/ktune
export HL_NUM_THREADS=2

echo "== tuning bench/suite/*.json for $budget into $db" >&2
start=$(date +%s)
"$ktune" tune bench/suite/*.json --db "$db" --budget "$budget" --threads 2 --log "${db%.db}.log"
echo "== tuned in $(( $(date +%s) - start )) s" >&2
"$ktune" db stats --db "$db"

table=$(mktemp)
"$ktune" bench bench/suite/*.json --db "$db" --threads 2 --expert-dir bench/expert --format markdown | tee "$table"
# Per subgraph: ktune's time against the fastest library and against Adams2019 (> 1: ktune is faster).
python3 - "$table" <<'PY'
import math, re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and not l.startswith("| subgraph") and not l.startswith("| geometric")]
header = next(l for l in open(sys.argv[1]) if l.startswith("| subgraph"))
cols = [c.strip() for c in header.strip().strip("|").split("|")]
def ms(cell):
    m = re.match(r"\s*([0-9.]+)", cell)
    return float(m.group(1)) if m else None
print("\n| subgraph | ktune ms | best library | library / ktune | Adams2019 / ktune |\n|---|---|---|---|---|")
lib_ratios, adams_ratios = [], []
for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    d = dict(zip(cols, cells))
    k = ms(d.get("ktune", ""))
    if k is None:
        continue
    libs = [(ms(d[c]), c) for c in ("OpenBLAS", "oneDNN") if c in d and ms(d[c]) is not None]
    best = min(libs) if libs else None
    a = ms(d.get("Adams2019", ""))
    lib = f"{best[1]} {best[0]:.3g}" if best else "—"
    lr = f"{best[0] / k:.2f}x" if best else "—"
    ar = f"{a / k:.2f}x" if a else "—"
    if best: lib_ratios.append(best[0] / k)
    if a: adams_ratios.append(a / k)
    print(f"| {d['subgraph']} | {k:.3g} | {lib} | {lr} | {ar} |")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print(f"| geometric mean | | | {g(lib_ratios):.2f}x (n={len(lib_ratios)}) | {g(adams_ratios):.2f}x (n={len(adams_ratios)}) |")
PY
rm -f "$table"
# Where the rounds went, and when each subgraph came within 90% of its final speed.
python3 bench/tuning_rounds.py "${db%.db}.log"
