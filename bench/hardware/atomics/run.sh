#!/usr/bin/env bash
# Measure every pattern of patterns.txt on the GPU: one launch per pattern, one shared
# atomic per launch, wavefront counters read by Nsight Compute.
#
# Run on a machine with an sm_90 GPU:
#   bash bench/hardware/atomics/run.sh OUTDIR
# Environment: BUDGET_S (seconds for the whole script, default 180), CHUNK (launches per
# ncu run, default 200), QUERY_METRICS (a saved `ncu --query-metrics` listing; made here
# when absent).
# Writes OUTDIR/atomics_sass.txt (the disassembly, then one sass-check/sass-form line per
# kernel) and OUTDIR/atomics_ncu.csv.gz (ncu's raw CSV; each ncu run preceded by a line
# "==CHUNK== first=I count=N" giving the patterns it covers, in file order).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/bankcheck-hw}}
corpus=atomics
source=probe_atomics.cu
# The atomics' initial stores are STS; only the atomic itself is checked.
ignore='STS(\.64)?'
# Known on the H100 (bench/hardware/measured/patterns*/env.txt), then those used only if listed.
required="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
smsp__inst_executed_op_shared_ld.sum
smsp__inst_executed_op_shared_st.sum
smsp__inst_executed_op_shared_atom.sum"
optional="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
smsp__sass_inst_executed_op_shared_atom.sum"
discover=''  # a regex of further base names to take from the listing (none here)

# shellcheck source=measure.sh
. "$here/measure.sh"
measure
