#!/usr/bin/env bash
# Golden-file tests: each CASE.cmd holds one bankcheck command line (arguments after
# `bankcheck`); CASE.expected holds its exact output (stdout, then stderr, then the exit
# code). Usage: run.sh BANKCHECK DIR [--update]   (--update rewrites the expectations)
# The CUDA toolkit's header directory (headers named in a report) reads as $CUDA/include,
# so that the expectations hold on any install; the repository root reads as $ROOT.
set -uo pipefail
# Pictures fold to $COLUMNS on a pipe: the expectations are the whole pictures.
unset COLUMNS
bin=$1 dir=$(cd "$2" && pwd) update=${3:-}
cd "$(dirname "$0")/../.."  # commands name files relative to the repository root
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# The real directory of the headers nvcc includes (what a report names, symlinks resolved),
# asked of nvcc itself so that it holds however nvcc was found (a wrapper, another PATH).
header=$("$nvcc" -M -x cu /dev/null 2>/dev/null | tr ' \\' '\n\n' | grep '/cuda_runtime\.h$' | head -n 1)
include=$(readlink -f "$(dirname "${header:-$(dirname "$nvcc")/../include/cuda_runtime.h}")")
# The repository root, as SARIF's originalUriBaseIds names it: file://$ROOT/.
root=$(pwd)
fail=0 n=0
for cmd in "$dir"/*.cmd; do
  n=$((n + 1))
  expected=${cmd%.cmd}.expected
  eval "args=($(cat "$cmd"))"
  actual=$( { "$bin" "${args[@]}" 2>&1 1>&3 3>&- | sed 's/^/stderr: /'; } 3>&1; echo "exit: ${PIPESTATUS[0]}")
  actual=${actual//"$include"/'$CUDA/include'}
  actual=${actual//"file://$root/"/'file://$ROOT/'}
  if [ "$update" = "--update" ]; then
    printf '%s\n' "$actual" > "$expected"
  elif ! diff -u "$expected" <(printf '%s\n' "$actual"); then
    echo "FAILED: $cmd"
    fail=$((fail + 1))
  fi
done
echo "golden: $((n - fail)) passed, $fail failed"
exit $((fail > 0))
