#!/usr/bin/env bash
# How long a user waits for per-line shared-memory counts of each example: `bankcheck check
# EX.cu --blocks all` (nvcc and ptxas included, whole grids, every kernel with a launch
# comment) against `ncu --section SourceCounters --page source --csv` of the example's own
# program, which launches the same kernels with the same grids. Both on the GPU machine,
# each REPS times in turn; the medians and their ratio per example.
#
# Run from the repository root on a machine with the GPU, nvcc and ncu:
#   bash bench/check/speed.sh BANKCHECK [OUTDIR] [REPS]
# BANKCHECK is a bankcheck binary (built here and carried: it needs only libfmt, put
# libfmt.so.9 beside it). Writes OUTDIR/speed.tsv (every run) and prints the table.
set -uo pipefail
bankcheck=$(readlink -f "$1")
out=${2:-${OUT:-/tmp/bankcheck-speed}}
reps=${3:-3}
export LD_LIBRARY_PATH="$(dirname "$bankcheck")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
examples=$(cd examples && ls *.cu | sed 's/\.cu$//')
for ex in $examples; do
  nvcc -arch=sm_90 -lineinfo -O3 -o "$work/$ex" "examples/$ex.cu" > /dev/null 2>&1 || echo "build $ex failed"
done
now() { date +%s.%N; }
printf 'example\ttool\trep\trc\twall_s\n' > "$out/speed.tsv"
for rep in $(seq 1 "$reps"); do
  for ex in $examples; do
    t0=$(now)
    "$bankcheck" check "examples/$ex.cu" --blocks all --format json -o "$work/$ex.json" > /dev/null 2>&1
    rc=$?
    t1=$(now)
    printf '%s\tbankcheck\t%s\t%s\t%s\n' "$ex" "$rep" "$rc" "$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')" >> "$out/speed.tsv"
    t0=$(now)
    timeout 300 ncu --section SourceCounters --page source --csv --print-source cuda,sass \
      "$work/$ex" > "$work/$ex.csv" 2>&1
    rc=$?
    t1=$(now)
    printf '%s\tncu\t%s\t%s\t%s\n' "$ex" "$rep" "$rc" "$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')" >> "$out/speed.tsv"
  done
done
python3 - "$out/speed.tsv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault((r["example"], r["tool"]), []).append(float(r["wall_s"]))
    if r["rc"] != "0":
        print(f"warning: {r['example']} {r['tool']} rep {r['rep']} exited {r['rc']}")
print(f"{'example':12} {'bankcheck s':>12} {'ncu s':>8} {'ratio':>7}   (target: ratio >= 10)")
for ex in sorted({k[0] for k in by}):
    b, n = statistics.median(by[(ex, "bankcheck")]), statistics.median(by[(ex, "ncu")])
    print(f"{ex:12} {b:12.2f} {n:8.2f} {n / b:7.1f}")
PY
