#!/usr/bin/env bash
# `make demo`: explain seed 004's transpose tile on sm_90: the conflicting read, then its
# two fixes (padding, and the padding-free rotation).
set -euo pipefail
bankcheck=${1:-build/tools/bankcheck/bankcheck}
run() { echo "\$ bankcheck $*" | sed "s/'//g"; "$bankcheck" "$@"; echo; }
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][33]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
run explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][(threadIdx.x + threadIdx.y) % 32]' --block 32,32
