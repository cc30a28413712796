#!/usr/bin/env python3
"""One markdown row of bench/rungen_compare.sh: the RunGen times of the tuned and the hand
schedule (ms) beside `ktune bench`'s fastest runs of the same two (its JSON output), and the
ratio of the two ratios ktune / hand (1.0: the bench predicts the user's build exactly).

    rungen_compare_row.py NAME RUNGEN_KTUNE_MS RUNGEN_HAND_MS BENCH.json
"""
import json
import sys


def bench_ms(bench, method):
    for subgraph in bench["subgraphs"]:
        for row in subgraph["methods"]:
            if row["method"] == method and row.get("status") == "ok":
                return row["min_ns"] / 1e6
    sys.exit(f"rungen_compare_row.py: {method} has no ok timing in the bench output")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    name, rungen_ktune, rungen_hand, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    with open(path) as f:
        bench = json.load(f)
    ktune, hand = bench_ms(bench, "ktune"), bench_ms(bench, "hand")
    rungen_ratio, bench_ratio = rungen_ktune / rungen_hand, ktune / hand
    print(f"| {name} | {rungen_ktune:.3f} | {rungen_hand:.3f} | {rungen_ratio:.2f} | {ktune:.3f} | {hand:.3f} "
          f"| {bench_ratio:.2f} | {bench_ratio / rungen_ratio:.2f} |")


if __name__ == "__main__":
    main()
