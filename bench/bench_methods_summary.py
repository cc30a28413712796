#!/usr/bin/env python3
"""One line from a `ktune bench --format json` output: each method with its status and, where
it ran, its median ("ktune ok 3.21 ms, hand ok 2.80 ms, Adams2019 failed"). Prints
"bench failed" when the file is not such an output.

    bench_methods_summary.py BENCH.json
"""
import json
import sys


def describe(method):
    text = f"{method['method']} {method['status']}"
    if method["status"] == "ok":
        text += f" {method['median_ns'] / 1e6:.2f} ms"
    return text


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1]) as f:
            bench = json.load(f)
    except (OSError, ValueError):
        print("bench failed")
        return
    print(", ".join(describe(m) for s in bench["subgraphs"] for m in s["methods"]))


if __name__ == "__main__":
    main()
