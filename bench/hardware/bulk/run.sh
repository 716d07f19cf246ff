#!/usr/bin/env bash
# cp.async.bulk on sm_90: SASS, per-line Source Counters and the kernel-level shared
# counters of each launch of probe_bulk.cu (one launch per size and alignment).
#   bash bench/hardware/bulk/run.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-bulk}
mkdir -p "$out"
work=$(mktemp -d)
nvcc -arch=sm_90 -O3 -lineinfo -o "$work/probe" "$here/probe_bulk.cu" || exit 1
nvcc -arch=sm_90 -O3 -lineinfo -ptx -o "$out/bulk.ptx" "$here/probe_bulk.cu"
cuobjdump -sass "$work/probe" > "$out/bulk_sass.txt" 2>&1
"$work/probe" > "$out/bulk_check.txt" 2>&1
ncu --section SourceCounters --page source --csv --print-source cuda,sass "$work/probe" \
  2>&1 | gzip -c > "$out/bulk_source.csv.gz"
ncu --csv --metrics \
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,\
smsp__sass_inst_executed_op_shared_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
  "$work/probe" > "$out/bulk_metrics.csv" 2>&1
rm -rf "$work"
