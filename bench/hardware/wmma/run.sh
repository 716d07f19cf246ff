#!/usr/bin/env bash
# wmma on sm_90: SASS, fragment layouts and per-line shared counters (probe_wmma.cu).
#   bash bench/hardware/wmma/run.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-wmma}
mkdir -p "$out"
work=$(mktemp -d)
nvcc -arch=sm_90 -O3 -lineinfo -o "$work/probe" "$here/probe_wmma.cu" || exit 1
nvcc -arch=sm_90 -O3 -lineinfo -ptx -o "$out/wmma.ptx" "$here/probe_wmma.cu"
cuobjdump -sass "$work/probe" > "$out/wmma_sass.txt" 2>&1
"$work/probe" > "$out/wmma_layout.txt" 2>&1
ncu --section SourceCounters --page source --csv --print-source cuda,sass "$work/probe" \
  2>&1 | gzip -c > "$out/wmma_source.csv.gz"
rm -rf "$work"
