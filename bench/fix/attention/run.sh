#!/usr/bin/env bash
# The example's flash-attention kernel with padded tiles against the layout `bankcheck fix`
# suggests (no padding, Swizzle<3,3,3>), on the GPU: correctness and CUDA-event timing
# (attention_swizzle.cu's main), Nsight Compute's per-line Source Counters of one launch of
# each, and the SASS.
#   bash bench/fix/attention/run.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-attention}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -arch=sm_90 -O3 -lineinfo -o "$work/attention" "$here/attention_swizzle.cu" || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
"$work/attention" | tee "$out/timing.tsv"
NO_TIMING=1 timeout 300 ncu --section SourceCounters --page source --csv --print-source cuda,sass \
  "$work/attention" 2>&1 | gzip -c > "$out/source.csv.gz"
NO_TIMING=1 timeout 300 ncu --metrics \
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,gpu__time_duration.sum \
  --csv "$work/attention" > "$out/metrics.csv" 2>&1
cuobjdump -sass "$work/attention" > "$out/sass.txt" 2>&1
