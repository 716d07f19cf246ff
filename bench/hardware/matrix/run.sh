#!/usr/bin/env bash
# Measure every pattern of patterns.txt on the GPU: one launch per pattern, one ldmatrix,
# stmatrix or cp.async per launch, the shared-memory counters read by Nsight Compute.
#
# Run on a machine with an sm_90 GPU:
#   bash bench/hardware/matrix/run.sh OUTDIR
# Environment: BUDGET_S (seconds for the whole script, default 180), CHUNK (launches per
# ncu run, default 200), MAX_EXTRA (most metrics beyond the required, default 16),
# QUERY_METRICS (a saved `ncu --query-metrics` listing; made here when absent), PATTERNS.
# Writes OUTDIR/matrix_sass.txt (the disassembly, then one sass-check/sass-form line per
# kernel) and OUTDIR/matrix_ncu.csv.gz (ncu's raw CSV; each ncu run preceded by a line
# "==CHUNK== first=I count=N" giving the patterns it covers, in file order).
#
# Nsight Compute counts LDSM, STSM and LDGSTS apart from LDS/STS in some metrics and not
# in others; which names exist depends on its version, so the names below are candidates,
# kept only when `ncu --query-metrics` lists them, and the listing is searched for more.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/bankcheck-hw}}
corpus=matrix
source=probe_matrix.cu
ignore=''
required="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
smsp__inst_executed_op_shared_ld.sum
smsp__inst_executed_op_shared_st.sum"
optional="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum
smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
smsp__sass_inst_executed_op_ldsm.sum
smsp__sass_inst_executed_op_stsm.sum
smsp__sass_inst_executed_op_ldgsts.sum
smsp__inst_executed_op_ldsm.sum
smsp__inst_executed_op_ldgsts.sum"
discover='(wavefronts|bank_conflicts|inst_executed).*(ldsm|stsm|ldgsts)'

# shellcheck source=../atomics/measure.sh
. "$here/../atomics/measure.sh"
measure
