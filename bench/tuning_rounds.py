#!/usr/bin/env python3
"""Where a tuning run spent its rounds, from the JSON lines `ktune tune --log FILE` wrote.

Per subgraph: rounds, trials, the best time at the end, and the tuning curve's landmark:
when the best first came within 90% of the final speed (time <= final / 0.9), as the
round and the minutes since the run began.
    python3 bench/tuning_rounds.py suite.log
"""
import json
import sys


def rounds_by_task(path):
    tasks = {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "task" in r and r.get("best_ns", -1) > 0:
                tasks.setdefault(r["task"], []).append(r)
    return tasks


def ms(ns):
    return f"{ns / 1e6:.3g}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tuning_rounds.py LOG")
    tasks = rounds_by_task(sys.argv[1])
    print("| subgraph | rounds | trials | best ms after round 1 | best ms at the end | 90% of final speed reached |")
    print("|---|---|---|---|---|---|")
    for name in sorted(tasks):
        rows = tasks[name]
        final = rows[-1]["best_ns"]
        reached = next(r for r in rows if r["best_ns"] <= final / 0.9)
        print(f"| {name} | {len(rows)} | {rows[-1]['trials']} | {ms(rows[0]['best_ns'])} | {ms(final)} | "
              f"round {reached['round']}, {reached['elapsed_s'] / 60:.1f} min |")


if __name__ == "__main__":
    main()
