#!/usr/bin/env bash
# bankcheck's CUDA driver against the GPU's own, on the questions where bankcheck's answers
# follow the documentation or public reports rather than a measurement (probe.cu: error
# strings, the codes of refused launches and copies, limits, cluster occupancy, a fault's
# stickiness). Builds probe.cu as nvcc does (the static runtime), runs it on the machine's
# driver and then on bankcheck's (LD_PRELOAD, the emulator as its executor), and writes
#   $OUT/native.txt     the GPU driver's answers
#   $OUT/bankcheck.txt  bankcheck's
#   $OUT/diff.txt       the lines that differ (empty: every answer agrees)
# Usage (repository root, a GPU machine, bankcheck built in BUILD):
#   bash bench/driver/compare.sh [BUILD]
set -uo pipefail
build=$(readlink -f "${1:-build}")
out=${OUT:-/tmp/bankcheck-driver-compare}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -std=c++17 -O1 -arch=sm_90 -o "$work/probe" bench/driver/probe.cu -lcuda \
  > "$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
"$work/probe" > "$out/native.txt" 2> "$out/native.err"
echo "native rc=$?" >> "$out/native.err"
LD_PRELOAD="$build/lib/bankcheck-cuda/libcuda.so.1" LD_LIBRARY_PATH="$build/lib/bankcheck-cuda" \
  BANKCHECK_ARCH=sm_90 "$work/probe" > "$out/bankcheck.txt" 2> "$out/bankcheck.err"
echo "bankcheck rc=$?" >> "$out/bankcheck.err"
diff "$out/native.txt" "$out/bankcheck.txt" > "$out/diff.txt"
echo "$(grep -c '^<' "$out/diff.txt") answers of the GPU's driver differ from bankcheck's ($out/diff.txt)"
