#!/usr/bin/env bash
# Build, run and profile every examples/*.cu on an sm_90 GPU (H100) with Nsight Compute.
#
# Run from the repository root on a machine with the GPU, nvcc, ncu, cuobjdump, nvdisasm:
#   bash bench/check/run.sh [OUTDIR]          (OUTDIR defaults to $OUT, then /tmp/bankcheck-check)
# Writes OUTDIR/check_results.tar.gz holding results/ (see bench/check/README.md), and
# OUTDIR/check_reports.tar.gz with the .ncu-rep reports when they are small enough.
# Unpack here with: tar xzf check_results.tar.gz -C bench/check
#
# Per example EX (EX = file name without .cu), in results/:
#   EX.build.txt          nvcc's output (-arch=sm_90 -lineinfo -O3)
#   EX.sass.txt           cuobjdump -sass
#   EX.sass_lines.txt     nvdisasm -g -c of the extracted cubin (SASS with file:line comments)
#   EX.run.txt            the plain run's output (one "KERNEL: OK|WRONG" line per kernel) + rc
#   EX.source.csv[.gz]    ncu --section SourceCounters --page source --csv --print-source cuda,sass
#   EX.source.app.txt     the example's own output under that ncu run
#   EX.source_sass.csv[.gz], EX.source_cuda.csv[.gz], EX.details.csv
#                         the same report printed as SASS only, CUDA only, and the details page
#   EX.metrics.csv        ncu --metrics (kernel-level wavefront, conflict, instruction counters)
#   timings.tsv           example, step, rc, wall seconds
#   env.txt, ncu_help.txt GPU, driver, ncu and nvcc versions; ncu --help
set -uo pipefail
out=${1:-${OUT:-/tmp/bankcheck-check}}
budget=${BUDGET_S:-500}  # skip the optional steps once this many seconds have passed
root=$(pwd)
mkdir -p "$out"
work=$(mktemp -d)
res=$work/results
mkdir -p "$res" "$work/bin" "$work/cubin" "$work/rep"
start=$(date +%s.%N)
elapsed() { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'; }
NCU=${NCU:-ncu}
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum

printf 'example\tstep\trc\twall_s\n' > "$res/timings.tsv"
# timed EX STEP CMD...: runs CMD, appends its rc and wall time to timings.tsv, returns rc.
timed() {
  local ex=$1 step=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@"; rc=$?
  t1=$(date +%s.%N)
  awk -v e="$ex" -v s="$step" -v r="$rc" -v a="$t1" -v b="$t0" \
      'BEGIN { printf "%s\t%s\t%d\t%.2f\n", e, s, r, a - b }' >> "$res/timings.tsv"
  return $rc
}

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  $NCU --version | tail -1; nvcc --version | tail -1; echo "metrics: $metrics"; } > "$res/env.txt" 2>&1
cat "$res/env.txt"
$NCU --help > "$res/ncu_help.txt" 2>&1

examples=()
for f in "$root"/examples/*.cu; do examples+=("$(basename "$f" .cu)"); done
# EXAMPLES="a b": measure only these (the others' results stay as they are).
if [ -n "${EXAMPLES:-}" ]; then read -ra examples <<< "$EXAMPLES"; fi

# 1. Build all in parallel (absolute source paths, so that ncu finds the sources).
for ex in "${examples[@]}"; do
  ( nvcc -arch=sm_90 -lineinfo -O3 -o "$work/bin/$ex" "$root/examples/$ex.cu" > "$res/$ex.build.txt" 2>&1
    echo "rc=$?" >> "$res/$ex.build.txt" ) &
done
wait
for ex in "${examples[@]}"; do
  echo "build $ex: $(tail -1 "$res/$ex.build.txt")"
  [ -x "$work/bin/$ex" ] || continue
  cuobjdump -sass "$work/bin/$ex" > "$res/$ex.sass.txt" 2>&1
  ( mkdir -p "$work/cubin/$ex" && cd "$work/cubin/$ex" && cuobjdump -xelf all "$work/bin/$ex" > /dev/null 2>&1
    for c in *.cubin; do echo "### $c"; nvdisasm -g -c "$c"; done ) > "$res/$ex.sass_lines.txt" 2>&1
done

# 2. Plain runs.
for ex in "${examples[@]}"; do
  [ -x "$work/bin/$ex" ] || continue
  timed "$ex" plain "$work/bin/$ex" > "$res/$ex.run.txt" 2>&1
  echo "rc=$?" >> "$res/$ex.run.txt"
  echo "== $ex"; cat "$res/$ex.run.txt"
done

# 3. Source counters, the command a user runs today (timed), ncu's output in EX.source.csv.
for ex in "${examples[@]}"; do
  [ -x "$work/bin/$ex" ] || continue
  timed "$ex" ncu_source timeout 150 $NCU --section SourceCounters --page source --csv \
      --print-source cuda,sass --cache-control none --clock-control none \
      --log-file "$res/$ex.source.csv" "$work/bin/$ex" > "$res/$ex.source.app.txt" 2>&1
  echo "ncu source $ex: rc=$? $(wc -l < "$res/$ex.source.csv") lines, $(elapsed) s so far"
done

# 4. Kernel-level counters.
for ex in "${examples[@]}"; do
  [ -x "$work/bin/$ex" ] || continue
  timed "$ex" ncu_metrics timeout 150 $NCU --metrics "$metrics" --csv --print-units base \
      --cache-control none --clock-control none \
      --log-file "$res/$ex.metrics.csv" "$work/bin/$ex" > "$res/$ex.metrics.app.txt" 2>&1
  echo "ncu metrics $ex: rc=$? $(elapsed) s so far"
done

# A first pack, in case the optional step runs out of time.
tar czf "$out/check_results.tar.gz" -C "$work" results

# 5. Optional: a saved report per example, printed three more ways.
for ex in "${examples[@]}"; do
  [ -x "$work/bin/$ex" ] || continue
  if awk -v a="$(elapsed)" -v b="$budget" 'BEGIN { exit !(a > b) }'; then echo "skipping reports from $ex on: time budget"; break; fi
  timed "$ex" ncu_report timeout 150 $NCU --section SourceCounters --import-source yes \
      --cache-control none --clock-control none -f -o "$work/rep/$ex" "$work/bin/$ex" \
      > "$res/$ex.report.app.txt" 2>&1
  [ -f "$work/rep/$ex.ncu-rep" ] || continue
  $NCU -i "$work/rep/$ex.ncu-rep" --page source --csv --print-source sass > "$res/$ex.source_sass.csv" 2>&1
  $NCU -i "$work/rep/$ex.ncu-rep" --page source --csv --print-source cuda > "$res/$ex.source_cuda.csv" 2>&1
  $NCU -i "$work/rep/$ex.ncu-rep" --page details --csv > "$res/$ex.details.csv" 2>&1
  echo "report $ex: $(elapsed) s so far"
done

# Compress the big ones; pack.
for f in "$res"/*.csv "$res"/*.sass*.txt; do
  [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 1000000 ] && gzip -9 "$f"
done
echo; cat "$res/timings.tsv"
tar czf "$out/check_results.tar.gz" -C "$work" results
tar czf "$work/reports.tar.gz" -C "$work" rep
[ "$(stat -c %s "$work/reports.tar.gz")" -lt 15000000 ] && cp "$work/reports.tar.gz" "$out/check_reports.tar.gz"
ls -l "$out"
echo "total $(elapsed) s"
