#!/usr/bin/env bash
# The first-hour programs (examples/first_hour: a transpose, a histogram, an SGEMM, each with
# its own argument parsing and check) before and after `bankcheck fix --apply`, on the GPU:
# bankcheck's counts (emulated, every launch) against Nsight Compute's for the same kernels,
# and the time each kernel takes.
# usage: bench/first_hour/run.sh BANKCHECK OUT   (an sm_90 GPU, nvcc and ncu on PATH)
#   OUT gets: env.txt; app.txt (each program's own output, original and fixed: PASSED);
#   P.before.json, P.after.json (bankcheck run --launches all of each); P.fixed.cu (what
#   fix --apply wrote); ncu.tsv (program, version, kernel, metric, value: shared wavefronts,
#   global load/store/atomic sectors, duration, summed over the kernel's launches);
#   compare.txt (bench/first_hour/compare.py: bankcheck's counts next to ncu's, the time
#   before and after); log.txt.
#   STEPS (default "bankcheck ncu") picks the parts to run; "bankcheck" alone needs no GPU.
set -uo pipefail
bankcheck=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); out=$2
mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-nvcc}; NCU=${NCU:-ncu}
steps=${STEPS:-bankcheck ncu}
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cp "$root"/examples/first_hour/*.cu .
flags=(-std=c++17 -O3 -lineinfo -gencode "arch=compute_90,code=[sm_90,compute_90]")
# The sizes: large enough to time, small enough to emulate every launch in seconds.
declare -A args=([transpose]="-w 1024 -h 1024 --iters 3" [histogram]="--n 4194304 --seed 3"
                 [sgemm]="256 256 256 --reps 2")
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $NVCC --version | tail -1
  $NCU --version | tail -1; "$bankcheck" --version; } > "$out/env.txt" 2>&1
: > "$out/app.txt"; : > "$out/log.txt"
for p in transpose histogram sgemm; do
  read -r -a a <<<"${args[$p]}"
  $NVCC "${flags[@]}" -o "$p" "$p.cu" >> "$out/log.txt" 2>&1 || echo "build failed: $p" >> "$out/log.txt"
  if has bankcheck; then
    "$bankcheck" run --backend emulator --no-progress --launches all --format json \
      -o "$out/$p.before.json" "./$p" "${a[@]}" >> "$out/app.txt" 2>> "$out/log.txt"
    rm -f "$p.fixed.cu"
    "$bankcheck" fix --no-progress --apply "./$p" "${a[@]}" > /dev/null 2>> "$out/log.txt"
    cp "$p.fixed.cu" "$out/" 2>> "$out/log.txt"
  else
    cp "$out/$p.fixed.cu" . 2>> "$out/log.txt"
  fi
  $NVCC "${flags[@]}" -o "${p}_fixed" "$p.fixed.cu" >> "$out/log.txt" 2>&1 ||
    echo "build failed: $p.fixed.cu" >> "$out/log.txt"
  if has bankcheck; then
    "$bankcheck" run --backend emulator --no-progress --launches all --format json \
      -o "$out/$p.after.json" "./${p}_fixed" "${a[@]}" >> "$out/app.txt" 2>> "$out/log.txt"
  fi
done
if has ncu; then
  metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,gpu__time_duration.sum
  printf 'program\tversion\tkernel\tmetric\tvalue\n' > "$out/ncu.tsv"
  for p in transpose histogram sgemm; do
    read -r -a a <<<"${args[$p]}"
    for v in original fixed; do
      exe=./$p; [ $v = fixed ] && exe=./${p}_fixed
      { echo "== $p $v (plain run)"; "$exe" "${a[@]}"; } >> "$out/app.txt" 2>&1
      timeout 600 $NCU --metrics "$metrics" --csv --print-units base "$exe" "${a[@]}" \
        > ncu.csv 2>> "$out/log.txt"
      python3 - ncu.csv "$p" "$v" >> "$out/ncu.tsv" <<'PY'
import csv, sys
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
sums = {}
for r in csv.DictReader(rows):
    key = (r["Kernel Name"].split("(")[0], r["Metric Name"])
    sums[key] = sums.get(key, 0.0) + float(r["Metric Value"].replace(",", "") or 0)
for (k, m), v in sorted(sums.items()):
    print(f"{sys.argv[2]}\t{sys.argv[3]}\t{k}\t{m}\t{v:.0f}")
PY
    done
  done
  python3 "$root/bench/first_hour/compare.py" "$out" > "$out/compare.txt" 2>> "$out/log.txt"
fi
