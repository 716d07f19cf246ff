#!/usr/bin/env bash
# `make demo`: check seed 004's transposes (examples/transpose.cu) without a GPU, then
# ask for fixes where padding would cost occupancy (examples/occupancy.cu), and explain
# the conflicting tile read and its two fixes (padding, padding-free rotation).
set -euo pipefail
bankcheck=${1:-build/tools/bankcheck/bankcheck}
run() { echo "\$ bankcheck $*" | sed "s/'//g"; "$bankcheck" "$@"; echo; }
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  run check examples/transpose.cu --blocks 8
  run fix examples/occupancy.cu --blocks 4
else
  echo "(no nvcc found: skipping 'bankcheck check' and 'bankcheck fix' of the examples)"
fi
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][33]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][(threadIdx.x + threadIdx.y) % 32]' --block 32,32
