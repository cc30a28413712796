#!/usr/bin/env bash
# Tunes the low-precision suite (bench/suite_lowp/: bf16, f16 and u8 x i8 subgraphs) and
# the f32 subgraphs of the public suite on the same shapes, each subgraph for its own
# budget, then benches them in one interleaved `ktune bench` against ktune's heuristic,
# oneDNN and OpenBLAS, and prints the markdown table and, per low-precision subgraph, its
# time against oneDNN's and against f32 ktune's on the same shape.
#   bash bench/tune_lowp.sh [BUDGET] [DB] [F32_BUDGET]   (defaults: 10m, lowp.db, BUDGET)
# Figures use HL_NUM_THREADS=2 and --threads 2 (the whole of a 2-core machine): run it on a
# quiet machine. A second run with the same DB resumes the tuning (the budgets are added).
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-10m}"
db="${2:-lowp.db}"
f32_budget="${3:-$budget}"
bash scripts/build.sh ktune
ktune=./build/tools/ktune
export HL_NUM_THREADS=2

# Each low-precision subgraph and the f32 subgraph of the public suite with its shape.
declare -A f32_of=(
  [mlp_gelu_bf16]=mlp_gelu [bmm_scores_bf16]=bmm_scores [gemm_u8s8_requant]=gemm_1024
  [conv3x3_u8s8_relu_requant]=conv3x3_relu [layernorm_f16]=layernorm)
lowp=(mlp_gelu_bf16 bmm_scores_bf16 gemm_u8s8_requant conv3x3_u8s8_relu_requant layernorm_f16)

start=$(date +%s)
for name in "${lowp[@]}"; do
  echo "== tuning $name for $budget" >&2
  "$ktune" tune "bench/suite_lowp/$name.json" --db "$db" --budget "$budget" --threads 2 --log "${db%.db}.log"
done
for name in "${lowp[@]}"; do
  echo "== tuning ${f32_of[$name]} (f32) for $f32_budget" >&2
  "$ktune" tune "bench/suite/${f32_of[$name]}.json" --db "$db" --budget "$f32_budget" --threads 2 --log "${db%.db}.log"
done
echo "== tuned in $(( $(date +%s) - start )) s" >&2

specs=()
for name in "${lowp[@]}"; do specs+=("bench/suite_lowp/$name.json" "bench/suite/${f32_of[$name]}.json"); done
table=$(mktemp)
"$ktune" bench "${specs[@]}" --db "$db" --threads 2 --methods ktune,ktune-heuristic,openblas,onednn --format markdown | tee "$table"
pairs=""
for name in "${lowp[@]}"; do pairs+="$name=${f32_of[$name]} "; done
python3 - "$table" $pairs <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
header = next(l for l in lines if l.startswith("| subgraph"))
cols = [c.strip() for c in header.strip().strip("|").split("|")]
def ms(cell):
    m = re.match(r"\s*([0-9.]+)", cell or "")
    return float(m.group(1)) if m else None
rows = {}
for l in lines:
    if l.startswith("| ") and not l.startswith("| subgraph") and not l.startswith("| geometric"):
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        rows[cells[0]] = dict(zip(cols, cells))
print("\n| subgraph | ktune ms | oneDNN ms | oneDNN / ktune | f32 ktune ms (same shape) | f32 ktune / ktune |\n|---|---|---|---|---|---|")
for pair in sys.argv[2:]:
    low, f32 = pair.split("=")
    k = ms(rows.get(low, {}).get("ktune"))
    d = ms(rows.get(low, {}).get("oneDNN"))
    f = ms(rows.get(f32, {}).get("ktune"))
    fmt = lambda v: f"{v:.3g}" if v is not None else "—"
    ratio = lambda a, b: f"{a / b:.2f}x" if a is not None and b else "—"
    print(f"| {low} | {fmt(k)} | {fmt(d)} | {ratio(d, k)} | {fmt(f)} | {ratio(f, k)} |")
PY
rm -f "$table"
