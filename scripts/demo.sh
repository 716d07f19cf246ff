#!/usr/bin/env bash
# `make demo`: run a whole CUDA program under bankcheck without a GPU (the bundled transpose
# program of examples/run, its four kernels analysed as it launches them, the report on
# standard error at its exit), check seed 004's transposes (examples/transpose.cu), ask for
# fixes where padding would cost occupancy (examples/occupancy.cu), and explain the
# conflicting tile read and its two fixes (padding, padding-free rotation).
set -euo pipefail
bankcheck=${1:-build/tools/bankcheck/bankcheck}
bankcheck=$(readlink -f "$bankcheck")
run() { echo "\$ bankcheck $*" | sed "s/'//g"; "$bankcheck" "$@" 2>&1; echo; }
program=$(dirname "$bankcheck")/../../examples/run/bin/transpose
if [ -x "$program" ]; then
  (cd examples/run/transpose && run run -- "$(readlink -f "$program")" 500 300 1)
else
  echo "(the bundled programs were not built (no nvcc or CUDA headers): skipping 'bankcheck run')"
fi
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  run check examples/transpose.cu --blocks 8
  run fix examples/occupancy.cu --blocks 4
else
  echo "(no nvcc found: skipping 'bankcheck check' and 'bankcheck fix' of the examples)"
fi
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][33]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][(threadIdx.x + threadIdx.y) % 32]' --block 32,32
