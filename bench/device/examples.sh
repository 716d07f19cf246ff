#!/usr/bin/env bash
# The bundled examples (examples/*.cu, examples/tensor, examples/tuned) under
# `bankcheck run --backend gpu` on the H100: per-line agreement with the Nsight Compute
# measurements of bench/check (examples.py), and per program the plain run, the GPU backend
# and `ncu --section SourceCounters` timed on the same machine.
#   bash bench/device/examples.sh CARRY [OUTDIR]
# CARRY as for gpu_run.sh. EXAMPLES=a,tuned/b limits the comparison to those; SPEED=0 skips
# the timing. Writes OUTDIR/examples_compare.md, examples_compare.log,
# examples_speed.tsv and examples_speed.txt.
set -uo pipefail
carry=$(readlink -f "$1")
out=$(readlink -f "${2:-${OUT:-/tmp/bankcheck-gpu-examples}}")
root=$(pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BANKCHECK_GPU_DIR="$carry/lib/bankcheck-gpu"
bankcheck=$carry/bin/bankcheck
bins=$(mktemp -d)
exs=()
for f in examples/*.cu examples/tensor/*.cu examples/tuned/*.cu; do
  ex=${f#examples/}; ex=${ex%.cu}
  [ -f bench/check/measured/h100/$ex.lines.tsv ] || [ -f bench/check/measured/h100_run_new/$ex.lines.tsv ] || continue
  exs+=("$ex")
  mkdir -p "$bins/$(dirname "$ex")"
  nvcc -arch=sm_90 -lineinfo -O3 -o "$bins/$ex" "$f" > "$bins/$ex.build.txt" 2>&1 &
done
wait
echo "== agreement (${#exs[@]} examples)"
python3 bench/device/examples.py "$bankcheck" "$bins" --markdown "$out/examples_compare.md" \
  --known bench/device/known_examples.tsv ${EXAMPLES:+--examples "$EXAMPLES"} \
  > "$out/examples_compare.log" 2>&1
tail -2 "$out/examples_compare.log"
[ "${SPEED:-1}" = 0 ] && exit 0
echo "== speed"
now() { date +%s.%N; }
printf 'example\tplain_s\tgpu_s\tncu_s\tgpu_rc\tncu_rc\n' > "$out/examples_speed.tsv"
for ex in "${exs[@]}"; do
  t0=$(now); "$bins/$ex" > /dev/null 2>&1; t1=$(now)
  "$bankcheck" run --backend gpu --no-progress --format json -o "$bins/x.json" -- "$bins/$ex" \
    > /dev/null 2>&1
  grc=$?; t2=$(now)
  timeout 120 ncu --section SourceCounters --page source --csv --print-source cuda,sass \
    "$bins/$ex" > /dev/null 2>&1
  nrc=$?; t3=$(now)
  awk -v r="$ex" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v g="$grc" -v n="$nrc" \
    'BEGIN { printf "%s\t%.3f\t%.3f\t%.3f\t%s\t%s\n", r, b - a, c - b, d - c, g, n }' \
    >> "$out/examples_speed.tsv"
done
python3 - "$out/examples_speed.tsv" > "$out/examples_speed.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| example | plain (s) | bankcheck run --backend gpu (s) | ncu SourceCounters (s) | ncu / bankcheck | ncu / plain (the bound) | slowdown vs plain |")
print("|---|---:|---:|---:|---:|---:|---:|")
ratios = []
for r in rows:
    p, g, n = float(r["plain_s"]), float(r["gpu_s"]), float(r["ncu_s"])
    ratios.append(n / g)
    print(f"| {r['example']} | {p:.2f} | {g:.2f} | {n:.2f} | {n / g:.1f}x | {n / p:.1f}x | {g / p:.2f}x |")
print(f"\nncu / bankcheck: min {min(ratios):.1f}x, median {statistics.median(ratios):.1f}x, "
      f"max {max(ratios):.1f}x; {sum(x >= 10 for x in ratios)} of {len(ratios)} at 10x or more")
PY
cat "$out/examples_speed.txt"
