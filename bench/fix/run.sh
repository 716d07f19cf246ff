#!/usr/bin/env bash
# Measures every suggestion `bankcheck fix` makes on the examples, on the GPU.
# usage: bench/fix/run.sh DIR OUT   (on a machine with an sm_90 GPU, nvcc and ncu)
#   DIR: holds manifest.tsv and variants/ (bench/fix/make_variants.py wrote them)
#   OUT: gets ncu.tsv (one row per manifest row: the kernel's shared wavefronts, bank
#        conflicts and duration, one launch under ncu), app.tsv (each program's own check
#        of its results: OK or WRONG) and log.txt
set -uo pipefail
dir=$(cd "$1" && pwd); out=$2
mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-nvcc}; NCU=${NCU:-ncu}
work=$(mktemp -d)
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,gpu__time_duration.sum
src_of() { case $1 in variants/*) echo "$dir/$1" ;; *) echo "$root/$1" ;; esac; }
name_of() { echo "$1" | tr '/' '_' | sed 's/\.cu$//'; }
export -f src_of name_of; export dir root NVCC work
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; $NVCC --version | tail -1; $NCU --version | tail -1; } > "$out/env.txt" 2>&1
tail -n +2 "$dir/manifest.tsv" | cut -f6 | sort -u > "$work/programs.txt"
# Build all programs in parallel.
xargs -P "$(nproc)" -I{} bash -c 'n=$(name_of "{}"); $NVCC -O3 -lineinfo -arch=sm_90 -o "$work/$n" "$(src_of "{}")" > "$work/$n.build.txt" 2>&1 || echo "build failed: {}"' < "$work/programs.txt" > "$out/log.txt" 2>&1
# Each program's own check.
printf 'program\tresult\n' > "$out/app.tsv"
while read -r p; do
  n=$(name_of "$p")
  r=$(timeout 120 "$work/$n" 2>&1 | tr '\n' ' ')
  printf '%s\t%s\n' "$p" "$r" >> "$out/app.tsv"
done < "$work/programs.txt"
# One ncu launch per (program, kernel).
printf 'program\tkernel\tmetric\tvalue\n' > "$out/ncu.tsv"
tail -n +2 "$dir/manifest.tsv" | while IFS=$'\t' read -r ex kernel array kind change program pred ideal; do
  n=$(name_of "$program")
  timeout 300 $NCU --kernel-name-base function --kernel-name "$kernel" --launch-count 1 \
      --metrics "$metrics" --csv --print-units base "$work/$n" > "$work/ncu.csv" 2>> "$out/log.txt"
  python3 - "$work/ncu.csv" "$program" "$kernel" >> "$out/ncu.tsv" <<'PY'
import csv, sys
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
for r in csv.DictReader(rows):
    print(f"{sys.argv[2]}\t{sys.argv[3]}\t{r['Metric Name']}\t{r['Metric Value'].replace(',', '')}")
PY
  echo "ncu $program $kernel done" >> "$out/log.txt"
done
rm -rf "$work"
