#!/usr/bin/env bash
# Candidates measured per second by `ktune tune` without MPI and with 1, 2 and 4 measuring
# MPI ranks on this one machine (oversubscribed: every rank shares the same cores, so this shows the
# protocol's overhead, not a cluster's speed-up), each for the same budget into a fresh
# database, then the coordinator simulated with 1 to 256 ranks on the last database's
# measurements (bench/micro/coordinator_sim.cc).
#   bash bench/mpi_scaling.sh [BUDGET] [OUT_DIR]   (defaults: 2m, /tmp/ktune-mpi-scaling)
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-2m}"
out="${2:-/tmp/ktune-mpi-scaling}"
bash scripts/build.sh ktune ktune_coordinator_sim
ktune=$PWD/build/tools/ktune
specs=(bench/suite/softmax.json bench/suite/layernorm.json bench/suite/bmm_scores.json)
mkdir -p "$out"
export HL_NUM_THREADS=2

rate() {  # measurements per second of the run in database $1 (its first to last measurement)
  "$ktune" db export-json --db "$1" | python3 -c '
import json, sys
from datetime import datetime
rows = [m for w in json.load(sys.stdin)["workloads"] for s in w["schedules"] for m in s["measurements"]]
t = sorted(datetime.fromisoformat(m["created_at"].replace("Z", "+00:00")).timestamp() for m in rows)
print(f"{len(rows)} measurements, {len(rows) / max(t[-1] - t[0], 1e-9):.2f} candidates/s")'
}

echo "| measuring ranks | processes | measured | candidates/s |"
echo "|---|---|---|---|"
for ranks in 0 1 2 4; do
  db="$out/ranks$ranks.db"
  rm -f "$db" "$db-wal" "$db-shm"
  if [ "$ranks" -eq 0 ]; then  # no MPI: this machine measures, as without a launcher
    "$ktune" tune "${specs[@]}" --db "$db" --budget "$budget" --threads 2 > /dev/null 2> "$out/ranks$ranks.log"
    label="none (no mpirun)"
    procs=1
  else
    procs=$((ranks + 1))
    mpirun --allow-run-as-root --oversubscribe -n "$procs" "$ktune" tune "${specs[@]}" --db "$db" --budget "$budget" \
      --threads 2 > /dev/null 2> "$out/ranks$ranks.log"
    label=$ranks
  fi
  echo "| $label | $procs | $(rate "$db" | sed 's/ measurements, / | /; s/ candidates\/s//') |"
done
echo
./build/bench/micro/ktune_coordinator_sim --db "$out/ranks4.db" --cores 2
