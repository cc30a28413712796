#!/usr/bin/env bash
# Which vector instructions the tuned low-precision kernels use: exports the best schedules
# of bench/suite_lowp/ from DB for this machine, disassembles each kernel and counts the
# dot-product, conversion and FMA instructions in it. (Which instructions a Sapphire Rapids
# target gets is checked by tests/scheduler/vector_reduce_codegen_test.cc.)
#   bash bench/lowp_instructions.sh [DB]   (default: lowp.db, as bench/tune_lowp.sh writes it)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-lowp.db}"
bash scripts/build.sh ktune >&2
ktune=./build/tools/ktune
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$ktune" export --db "$db" --workload bench/suite_lowp/*.json --out "$out/host" --name lowp >&2
# The instructions that tell how a kernel computes: dot products (VNNI, AVX512-BF16, 16-bit
# pairs), bf16 and f16 conversions, f32 FMAs, and the shifts and zero-extensions Halide
# emulates bf16 and f16 conversions with, 16-bit inserts one element at a time (vpinsrw),
# and AVX512-FP16 moves (vmovw), which a CPU without AVX512-FP16 must never see.
pattern='vpdpbusd|vpdpwssd|vdpbf16ps|vcvtne2?ps2bf16|vpmaddwd|vpmaddubsw|vfmadd[0-9]+ps|vcvtph2ps|vcvtps2ph|vpmovzxwd|vpslld|vpinsrw|vmovw'
echo "| kernel | instructions (count in the kernel's code) |"
echo "|---|---|"
objdump -d --no-show-raw-insn "$out/host/liblowp.a" |
  awk -v pat="^($pattern)$" '
    /^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); sub(/_par_for.*|\.s[0-9].*/, "", fn); next }
    /\t/ { n = split($0, f, "\t"); split(f[n], w, " "); if (w[1] ~ pat && fn ~ /^ktune_/) count[fn " " w[1]]++ }
    END { for (k in count) print k, count[k] }' |
  sort | awk '{ line[$1] = line[$1] (line[$1] ? ", " : "") $2 " " $3 } END { for (k in line) print "| " k " | " line[k] " |" }' | sort
