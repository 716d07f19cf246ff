#!/usr/bin/env bash
# Measure the per-instruction cp.async corpus on an sm_90 GPU (H100):
#   bash bench/hardware/cpasync/run.sh OUTDIR
# Builds probe_cpasync.cu (-lineinfo), runs it, then profiles it with Nsight Compute's
# Source Counters and writes OUTDIR/cpasync_source.csv.gz (ncu --page source --csv
# --print-source cuda,sass: per kernel, each CUDA line's row then its SASS rows),
# OUTDIR/cpasync_env.txt and OUTDIR/cpasync_run.txt. parse.py turns the CSV into
# results.tsv (one row per pattern).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/bankcheck-cpasync}}
mkdir -p "$out"
work=$(mktemp -d)
cp "$here/probe_cpasync.cu" "$here/patterns.txt" "$work/"
cd "$work"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1
  nvcc --version | tail -1; } > "$out/cpasync_env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -O3 -o probe probe_cpasync.cu > "$out/cpasync_run.txt" 2>&1 || { cat "$out/cpasync_run.txt"; exit 1; }
./probe >> "$out/cpasync_run.txt" 2>&1; echo "plain rc=$?" >> "$out/cpasync_run.txt"
ncu --section SourceCounters --page source --csv --print-source cuda,sass --cache-control none \
    --clock-control none --log-file source.csv ./probe >> "$out/cpasync_run.txt" 2>&1
echo "ncu rc=$? $(wc -l < source.csv) lines" >> "$out/cpasync_run.txt"
gzip -9c source.csv > "$out/cpasync_source.csv.gz"
cuobjdump -sass probe > "$out/cpasync_sass.txt"
{ echo "LDGSTS: $(grep -c LDGSTS "$out/cpasync_sass.txt"), by guard:"; grep LDGSTS "$out/cpasync_sass.txt" | grep -o "@!\?U\?P[0-9T]" | sort | uniq -c; } >> "$out/cpasync_run.txt"
cat "$out/cpasync_run.txt" "$out/cpasync_env.txt"
