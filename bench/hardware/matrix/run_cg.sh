#!/usr/bin/env bash
# The focused cp.async.cg corpus (gen_cg.py, patterns_cg.txt): kernel-level counters as
# run.sh measures them, then one Nsight Compute Source Counters pass over the same launches
# for each instruction's per-line "L1 Wavefronts Shared" and "... Ideal".
#   bash bench/hardware/matrix/run_cg.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-cg}
mkdir -p "$out"
PATTERNS=$here/patterns_cg.txt BUDGET_S=${BUDGET_S:-150} bash "$here/run.sh" "$out"
work=$(mktemp -d)
nvcc -arch=sm_90 -O3 -lineinfo -o "$work/probe" "$here/probe_matrix.cu" || exit 1
timeout 300 ncu --section SourceCounters --page source --csv --print-source sass \
  "$work/probe" "$here/patterns_cg.txt" 2>&1 | gzip -c > "$out/cg_source.csv.gz"
rm -rf "$work"
