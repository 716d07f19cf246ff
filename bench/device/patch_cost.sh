#!/usr/bin/env bash
# What one instrumented launch costs on the GPU, part by part (bench/device/results/patch_cost).
# On the GPU machine, from the repository root:
#
#   bash bench/device/patch_cost.sh OUT ["PROGRAM ARGS;PROGRAM ARGS..."]
#
# Builds bankcheck with the GPU backend in build-gpu (BANKCHECK=PATH: one built before), the
# examples/launch_heavy programs named, and bankcheck's patches without the model
# (-DBANKCHECK_PATCHES_LEAN). Then per program (default "crossentropy_forward 0 0 5;
# matmul_forward 2 256 2": few timed launches, whose per-kernel times the programs print):
# the plain run; `--launches all` (every launch instrumented); the same with every module
# patched but no table (the sanitizer's call alone); with BANKCHECK_GPU_PROBE 1 to 4 (returns
# after the record, after the gather, after the costing; 4: no fast path for global requests;
# shared requests have only their fast path for 2 and 4); with the lean patches; and with BANKCHECK_GPU_SHARDS of SHARDS (default "1 128"). Each run's output
# (the program's table, then wall seconds and exit code) goes to OUT/TAG.out, the list to
# OUT/times.txt.
set -u
[ -f bench/device/patch_cost.sh ] || { echo "patch_cost.sh: run it from the repository root" >&2; exit 2; }
export PATH=/usr/local/cuda/bin:$PATH
out=$(mkdir -p "${1:-/tmp/bankcheck-patch-cost}" && readlink -f "${1:-/tmp/bankcheck-patch-cost}")
IFS=';' read -ra specs <<< "${2:-crossentropy_forward 0 0 5;matmul_forward 2 256 2}"
bins=$out/bin
mkdir -p "$bins"
nv=(-O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Iexamples/launch_heavy)
for spec in "${specs[@]}"; do
  set -- $spec
  libs=(); grep -q cublas "examples/launch_heavy/$1.cu" && libs=(-lcublas)
  nvcc "${nv[@]}" -o "$bins/$1" "examples/launch_heavy/$1.cu" "${libs[@]}" > "$out/nvcc_$1.txt" 2>&1 &
done
nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch -arch=sm_90 -std=c++20 -O3 \
  -Iinclude -I/usr/local/cuda/compute-sanitizer/include -DBANKCHECK_PATCHES_LEAN \
  -o "$bins/lean.fatbin" src/device/patches.cu > "$out/nvcc_lean.txt" 2>&1 &
b=${BANKCHECK:-}
if [ -z "$b" ]; then
  { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF &&
    cmake --build build-gpu --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx \
      bankcheck_gpu; } > "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
  b=$PWD/build-gpu/tools/bankcheck/bankcheck
fi
wait
t() { local s; s=$(date +%s.%N); "$@"; local rc=$?
      awk -v a="$(date +%s.%N)" -v b="$s" -v rc=$rc 'BEGIN { printf "%.2f s rc %d\n", a - b, rc }'; }
one() {  # TAG COMMAND...
  local tag=$1; shift
  t timeout "${CAP:-90}" "$@" > "$out/$tag.out" 2>&1
  echo "$tag: $(tail -1 "$out/$tag.out")" | tee -a "$out/times.txt"
}
for spec in "${specs[@]}"; do
  set -- $spec; p=$1; shift; tag=${p}_$(echo "$*" | tr ' ' '_')
  all=("$b" run --backend gpu --launches all --no-progress --format json)
  one "${tag}_plain" "$bins/$p" "$@"
  one "${tag}_full" "${all[@]}" -o "$out/${tag}_full.json" -- "$bins/$p" "$@"
  one "${tag}_nulldata" "${all[@]}" --kernel 'regex:^nomatch$' -o /dev/null -- "$bins/$p" "$@"
  for probe in 1 2 3 4; do
    one "${tag}_probe$probe" env BANKCHECK_GPU_PROBE=$probe "${all[@]}" -o /dev/null -- "$bins/$p" "$@"
  done
  [ -s "$bins/lean.fatbin" ] &&
    one "${tag}_lean" env BANKCHECK_GPU_PATCHES="$bins/lean.fatbin" "${all[@]}" -o /dev/null -- "$bins/$p" "$@"
  for s in ${SHARDS:-1 128}; do
    one "${tag}_shards$s" env BANKCHECK_GPU_SHARDS=$s "${all[@]}" -o /dev/null -- "$bins/$p" "$@"
  done
done
