#!/usr/bin/env bash
# Measures every suggestion `bankcheck fix` makes on the examples, on the GPU.
# usage: bench/fix/run.sh DIR OUT   (on a machine with an sm_90 GPU, nvcc and ncu)
#   DIR: holds manifest.tsv and variants.tar.gz (bench/fix/make_variants.py wrote them)
#   OUT: gets ncu.tsv (one row per manifest row: the kernel's shared wavefronts, bank
#        conflicts and duration, one launch under ncu), app.tsv (each program's own check
#        of its results: OK or WRONG), source.tar.gz (per (program, kernel): ncu's
#        per-instruction Source Counters, which bench/check/lines.py sums per line; the
#        kernel-level counters also count other L1 traffic on large kernels) and log.txt
#   STEPS (default "app metrics source") picks the measurements to take.
set -uo pipefail
dir=$(cd "$1" && pwd); out=$2
mkdir -p "$out"; out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-nvcc}; NCU=${NCU:-ncu}
work=$(mktemp -d)
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,gpu__time_duration.sum
# The variant sources, unpacked where ncu's source view can find them for the whole run.
mkdir -p "$work/src" && tar xzf "$dir/variants.tar.gz" -C "$work/src"
src_of() { case $1 in variants/*) echo "$work/src/$1" ;; *) echo "$root/$1" ;; esac; }
name_of() { echo "$1" | tr '/' '_' | sed 's/\.cu$//'; }
export -f src_of name_of; export dir root NVCC work
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; $NVCC --version | tail -1; $NCU --version | tail -1; } > "$out/env.txt" 2>&1
tail -n +2 "$dir/manifest.tsv" | cut -f6 | sort -u > "$work/programs.txt"
# Build all programs in parallel.
xargs -P "$(nproc)" -I{} bash -c 'n=$(name_of "{}"); $NVCC -O3 -lineinfo -arch=sm_90 -o "$work/$n" "$(src_of "{}")" > "$work/$n.build.txt" 2>&1 || echo "build failed: {}"' < "$work/programs.txt" > "$out/log.txt" 2>&1
steps=${STEPS:-app metrics source}
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
# Each program's own check (four at a time).
if has app; then
printf 'program\tresult\n' > "$out/app.tsv"
xargs -P 4 -I{} bash -c 'n=$(name_of "{}"); r=$(timeout 120 "$work/$n" 2>&1 | tr "\n" " "); printf "%s\t%s\n" "{}" "$r"' < "$work/programs.txt" >> "$out/app.tsv"
fi
# One ncu launch per (program, kernel).
if has metrics; then
printf 'program\tkernel\tmetric\tvalue\n' > "$out/ncu.tsv"
tail -n +2 "$dir/manifest.tsv" | while IFS=$'\t' read -r ex kernel array kind change program pred ideal; do
  [ "$kind" = original ] && [ "$pred" = 0 ] && continue  # no shared memory: nothing to compare
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
fi
# Source counters per (program, kernel), packed after each so that a cut-off run keeps them.
if has source; then
mkdir -p "$work/source"
tail -n +2 "$dir/manifest.tsv" | while IFS=$'\t' read -r ex kernel array kind change program pred ideal; do
  [ "$kind" = original ] && [ "$pred" = 0 ] && continue
  n=$(name_of "$program")
  timeout 300 $NCU --kernel-name-base function --kernel-name "$kernel" --launch-count 1 \
      --section SourceCounters --page source --csv --print-source cuda,sass \
      --log-file "$work/source/${n}__$kernel.source.csv" "$work/$n" > /dev/null 2>> "$out/log.txt"
  gzip -f "$work/source/${n}__$kernel.source.csv"
  tar czf "$out/source.tar.gz" -C "$work" source
  echo "source $program $kernel done" >> "$out/log.txt"
done
fi
rm -rf "$work"
