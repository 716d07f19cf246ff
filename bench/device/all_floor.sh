#!/usr/bin/env bash
# What `run --backend gpu --launches all` costs on the launch-heavy set, against the floor no
# patch can go under: the sanitizer's call alone (bench/device/results/all_floor).
# On the GPU machine, from the repository root:
#
#   BANKCHECK=PATH bash bench/device/all_floor.sh OUT [NAME...]
#
# NAME: examples/launch_heavy programs (default: all of them but matmul_forward, whose 14 s
# plain run is mostly one kernel) and train_loop (bench/device/python/train_loop.py 200). Per
# program, run as it runs by default (validation, then 1,000 timed launches per kernel):
#   plain     the program alone;
#   all       `bankcheck run --backend gpu --launches all` (every launch instrumented);
#   call      the same with a --kernel that names no kernel: every module patched, every
#             memory instruction calls its patch, and the patch returns at once (no table):
#             the sanitizer's call alone, the least any instrumentation of every launch costs.
# Each bankcheck run is cut at CAP_X times the plain run (default 3, at least 10 s): a cut run
# reads ">S". Prints each time, its ratio to the plain run and the target (2x); the table goes
# to OUT/all_floor.tsv, each run's output to OUT/NAME.TAG.out.
set -u
[ -f bench/device/all_floor.sh ] || { echo "all_floor.sh: run it from the repository root" >&2; exit 2; }
export PATH=/usr/local/cuda/bin:$PATH
out=$(mkdir -p "${1:-/tmp/bankcheck-all-floor}" && readlink -f "${1:-/tmp/bankcheck-all-floor}")
shift || true
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(encoder_forward layernorm_forward gelu_residual_forward
                                  attention_forward crossentropy_forward train_loop)
b=$(readlink -f "${BANKCHECK:?BANKCHECK: a bankcheck built with the GPU backend}")
bins=$out/bin
mkdir -p "$bins" "$out/ext"
export EXT_DIR=$out/ext TRITON_CACHE_DIR=$out/triton PYTHONUNBUFFERED=1
nv=(-O3 -lineinfo -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -Iexamples/launch_heavy)
for n in "${names[@]}"; do
  [ "$n" = train_loop ] && { python3 bench/device/python/train_loop.py 3 > "$out/train_loop.first.out" 2>&1 & continue; }
  libs=(); grep -q cublas "examples/launch_heavy/$n.cu" && libs=(-lcublas)
  nvcc "${nv[@]}" -o "$bins/$n" "examples/launch_heavy/$n.cu" "${libs[@]}" > "$out/$n.nvcc.txt" 2>&1 &
done
wait
secs() { awk -v a="$2" -v b="$1" 'BEGIN { printf "%.2f", a - b }'; }
run() {  # run NAME TAG CAP COMMAND...: sets s (seconds, ">CAP" when cut) and rc
  local n=$1 tag=$2 cap=$3 t0
  shift 3
  t0=$(date +%s.%N)
  timeout -k 5 "$cap" "$@" > "$out/$n.$tag.out" 2>&1
  rc=$?
  s=$(secs "$t0" "$(date +%s.%N)")
  [ "$rc" = 124 ] || [ "$rc" = 137 ] && s=">$cap"
}
ratio() { case $1 in '>'*) awk -v a="${1#>}" -v p="$2" 'BEGIN { printf ">%.1fx", a / p }' ;;
                     *) awk -v a="$1" -v p="$2" 'BEGIN { printf "%.2fx", a / p }' ;; esac; }
printf 'program\tplain_s\tall_s\tall_x\tcall_s\tcall_x\ttarget\n' | tee "$out/all_floor.tsv"
for n in "${names[@]}"; do
  if [ "$n" = train_loop ]; then cmd=(python3 "$PWD/bench/device/python/train_loop.py" 200)
  else cmd=("$bins/$n"); fi
  run "$n" plain 300 "${cmd[@]}"; plain=$s
  cap=$(awk -v p="$plain" -v x="${CAP_X:-3}" 'BEGIN { c = int(p * x + 0.5); print c < 10 ? 10 : c }')
  bc=("$b" run --backend gpu --launches all --no-progress --format json)
  run "$n" all "$cap" "${bc[@]}" -o "$out/$n.all.json" -- "${cmd[@]}"; all=$s
  run "$n" call "$cap" "${bc[@]}" --kernel 'regex:^no kernel has this name$' -o /dev/null -- "${cmd[@]}"; call=$s
  printf '%s\t%s\t%s\t%s\t%s\t%s\t2x\n' "$n" "$plain" "$all" "$(ratio "$all" "$plain")" \
    "$call" "$(ratio "$call" "$plain")" | tee -a "$out/all_floor.tsv"
done
rm -rf "$bins" "$EXT_DIR" "$TRITON_CACHE_DIR"
