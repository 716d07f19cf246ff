#!/usr/bin/env bash
# The compile cache: a second check of an unchanged file runs neither nvcc nor ptxas and
# writes the same report; a changed header, a changed -D and --no-cache compile again; a
# corrupt or unusable cache is no error; ptxas compiles only the kernels checked
# (--entry). A recording nvcc and ptxas (scripts of those names, side by side, that log
# their arguments and run the real tools) count the compiles.
# Usage: compile_cache_test.sh BANKCHECK NVCC   (run from the repository root)
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") nvcc=$2
ptxas=$(dirname "$nvcc")/ptxas
fail=0
say() { echo "compile_cache_test: $*" >&2; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tc" "$tmp/proj"
printf '#!/bin/sh\necho "$*" >> "%s"\nexec "%s" "$@"\n' "$tmp/calls-nvcc" "$nvcc" >"$tmp/tc/nvcc"
printf '#!/bin/sh\necho "$*" >> "%s"\nexec "%s" "$@"\n' "$tmp/calls-ptxas" "$ptxas" >"$tmp/tc/ptxas"
chmod +x "$tmp/tc/nvcc" "$tmp/tc/ptxas"
export BANKCHECK_CACHE_DIR="$tmp/cache"
cat >"$tmp/proj/tile.cuh" <<'CU'
#define PAD 0
CU
cat >"$tmp/proj/k.cu" <<'CU'
#include "tile.cuh"
// bankcheck: kernel=column grid=1 block=32,32 arg=out=zeros:4096
__global__ void column(float* out) {
  __shared__ float tile[32][32 + PAD];
  tile[threadIdx.x][threadIdx.y] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}
// bankcheck: kernel=other grid=1 block=32 arg=out=zeros:128
__global__ void other(float* out) { out[threadIdx.x] = 1; }
CU
calls() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
run() {  # OUTFILE ARGS...: check k.cu as JSON with the recording nvcc
  local out=$1; shift
  (cd "$tmp/proj" && "$bin" check k.cu --nvcc "$tmp/tc/nvcc" --format json "$@") >"$out" 2>"$tmp/err"
  local rc=$?
  [ $rc = 0 ] || say "check $* exit $rc: $(cat "$tmp/err")"
}

run "$tmp/r1.json"
[ "$(calls "$tmp/calls-nvcc")" = 1 ] || say "first run: nvcc ran $(calls "$tmp/calls-nvcc") times, not once"
[ "$(calls "$tmp/calls-ptxas")" = 1 ] || say "first run: ptxas ran $(calls "$tmp/calls-ptxas") times, not once"
ls "$tmp/cache"/*.entry >/dev/null 2>&1 || say "first run stored nothing in \$BANKCHECK_CACHE_DIR"

run "$tmp/r2.json"
[ "$(calls "$tmp/calls-nvcc")" = 1 ] || say "unchanged file: nvcc ran again"
[ "$(calls "$tmp/calls-ptxas")" = 1 ] || say "unchanged file: ptxas ran again"
cmp -s "$tmp/r1.json" "$tmp/r2.json" || say "the cached run's report differs: $(diff "$tmp/r1.json" "$tmp/r2.json" | head -5)"

# A header the source includes changes what nvcc compiles.
echo '#define PAD 1' >"$tmp/proj/tile.cuh"
run "$tmp/r3.json"
[ "$(calls "$tmp/calls-nvcc")" = 2 ] || say "changed header: nvcc did not run again"
cmp -s "$tmp/r1.json" "$tmp/r3.json" && say "changed header: the report did not change"
run "$tmp/r4.json" -D EXTRA=1
[ "$(calls "$tmp/calls-nvcc")" = 3 ] || say "-D EXTRA=1: nvcc did not run again"
n=$(calls "$tmp/calls-ptxas")
run "$tmp/r5.json" --no-cache
[ "$(calls "$tmp/calls-nvcc")" = 4 ] || say "--no-cache: nvcc did not run"
[ "$(calls "$tmp/calls-ptxas")" = $((n + 1)) ] || say "--no-cache: ptxas did not run"
cmp -s "$tmp/r3.json" "$tmp/r5.json" || say "--no-cache: another report than the cached run's"

# Corrupt entries read as absent: compiled again, stored again.
for f in "$tmp/cache"/*.entry; do printf 'garbage' >"$f"; done
run "$tmp/r6.json"
[ "$(calls "$tmp/calls-nvcc")" = 5 ] || say "corrupt cache: nvcc did not run"
cmp -s "$tmp/r3.json" "$tmp/r6.json" || say "corrupt cache: another report"
run "$tmp/r7.json"
[ "$(calls "$tmp/calls-nvcc")" = 5 ] || say "after a corrupt cache: the entry was not stored again"
# A cache that cannot be made (a file where its directory would be): no error, no note.
: >"$tmp/file"
BANKCHECK_CACHE_DIR="$tmp/file/sub" run "$tmp/r8.json"
[ -s "$tmp/err" ] && say "unusable cache: it said something: $(cat "$tmp/err")"
cmp -s "$tmp/r3.json" "$tmp/r8.json" || say "unusable cache: another report"

# --kernel: ptxas compiles that kernel only.
: >"$tmp/calls-ptxas"
run "$tmp/r9.json" --kernel other --no-cache
grep -q -- '--entry _Z5otherPf ' "$tmp/calls-ptxas" ||
  say "--kernel other: ptxas was not run with --entry _Z5otherPf: $(cat "$tmp/calls-ptxas")"
grep -q '_Z6columnPf' "$tmp/calls-ptxas" && say "--kernel other: ptxas compiled column too"
exit $fail
