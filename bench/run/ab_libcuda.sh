#!/usr/bin/env bash
# A against B: two builds of bankcheck's libcuda.so.1 on one program, by its launches' own
# execution times (BANKCHECK_LAUNCH_TIMES), launches not analysed, every launch executed, on
# the fast tier with each build's native code compiled first in a cache of its own. Prints
# each build's least sum over REPS runs. The two files take turns in BUILD's
# lib/bankcheck-cuda/ (put back as they were at the end), so both run under the same
# bankcheck run.
#
#   bash bench/run/ab_libcuda.sh A_LIBCUDA B_LIBCUDA PROGRAM [ARG...]
#   BUILD (default build), REPS (default 3), THREADS (default: all cores)
set -uo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 A_LIBCUDA B_LIBCUDA PROGRAM [ARG...]" >&2; exit 2; }
a=$(readlink -f "$1") bl=$(readlink -f "$2"); shift 2
build=$(readlink -f "${BUILD:-build}")
b=$build/tools/bankcheck/bankcheck
lib=$build/lib/bankcheck-cuda/libcuda.so.1
work=$(mktemp -d)
cp "$lib" "$work/kept"
trap 'cp "$work/kept" "$lib"; rm -rf "$work"' EXIT
run() {  # LIBCUDA CACHE [ENV...]: one run, its launch seconds summed
  local l=$1 cache=$2; shift 2
  cp "$l" "$lib"
  rm -f "$work/times"
  env "$@" BANKCHECK_CACHE_DIR="$cache" BANKCHECK_LAUNCH_TIMES="$work/times" "$b" run \
    --no-progress --kernel no_such_kernel --repeats execute ${THREADS:+--threads "$THREADS"} \
    -o "$work/x.txt" -- "${program[@]}" > /dev/null 2>&1
  awk '{ s += $3 } END { printf "%.4f", s }' "$work/times"
}
program=("$@")
for side in A B; do
  l=$a; [[ $side == B ]] && l=$bl
  run "$l" "$work/cache-$side" BANKCHECK_NATIVE_AFTER=0 > /dev/null  # compiles its native code
  least=""
  for _ in $(seq 1 "${REPS:-3}"); do
    s=$(run "$l" "$work/cache-$side")
    least=$(awk -v x="$s" -v m="$least" 'BEGIN { print (m == "" || x < m) ? x : m }')
  done
  echo "$side $(basename "${program[0]}") launches ${least} s ($l)"
done
