#!/usr/bin/env bash
# A default `check` (sampled CTAs, nvcc and ptxas included) of a 4096x4096x4096
# tensor-core HGEMM (examples/tensor/hgemm.cu at 4096^3: 4,096 CTAs, 64 K-tiles each),
# timed REPS times per kernel on this machine; prints the median against the target.
#   bash bench/check/hgemm4096.sh BANKCHECK [REPS]
set -euo pipefail
bankcheck=$(readlink -f "$1")
reps=${2:-3}
cd "$(dirname "$0")/../.."
args=(--grid 64,64 --arg M=4096 --arg N=4096 --arg K=4096 --arg A=random:32M
      --arg B=random:32M --arg C=zeros:64M --format json -o /dev/null)
echo "cores: $(nproc); target: under 2 s a run, nvcc included"
for k in hgemm_rowmajor hgemm_swizzled; do
  times=()
  for _ in $(seq "$reps"); do
    t0=$(date +%s.%N)
    "$bankcheck" check examples/tensor/hgemm.cu --kernel "$k" "${args[@]}"
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$k: ${times[*]} s; median $median s (target < 2 s)"
done
