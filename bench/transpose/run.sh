#!/usr/bin/env bash
# Build, check, time and profile the transpose ladder (transpose_bench.cu) on an sm_90 GPU.
#
# Run from the repository root on a machine with the GPU, nvcc, ncu and cuobjdump:
#   bash bench/transpose/run.sh [OUTDIR]     (OUTDIR defaults to $OUT, then /tmp/bankcheck-transpose)
# Writes OUTDIR/transpose_results.tar.gz holding results/ (see bench/transpose/README.md).
# Unpack here with: tar xzf OUTDIR/transpose_results.tar.gz -C bench/transpose
# then: python3 bench/transpose/report.py     (table into the READMEs, docs/transpose.svg)
#
# In results/:
#   env.txt                  date, GPU, driver, clocks, nvcc and ncu versions
#   nvidia-smi.txt           nvidia-smi -q before the runs
#   build.txt                nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v (registers, smem)
#   sass.txt.gz              cuobjdump -sass
#   res_usage.txt            cuobjdump -res-usage
#   run1.txt .. runN.txt     the program's output: one check line per kernel (before and
#                            after timing), then the TSV; runK.tsv the TSV alone (RUNS runs,
#                            default 3, each REPS timed repetitions, default 200)
#   clocks.csv               nvidia-smi samples (SM and memory clocks, power, temperature)
#                            every 200 ms during the timed runs
#   transpose.metrics.csv    ncu --metrics (occupancy limits, achieved occupancy, shared
#                            wavefronts and bank conflicts), one launch of each kernel
#   transpose.sections.csv.gz  ncu --section Occupancy --section LaunchStats
#                            --section SpeedOfLight --page details, the same launches
#   transpose.source.csv.gz  ncu --section SourceCounters --page source --csv
#                            --print-source cuda,sass, the same launches: per SASS
#                            instruction and source line, shared wavefronts and their ideal
#                            (bench/check/lines.py makes transpose.lines.tsv of it)
#   ncu_*.app.txt            the program's own output under each ncu run
#   timings.tsv              step, rc, wall seconds
set -uo pipefail
out=${1:-${OUT:-/tmp/bankcheck-transpose}}
runs=${RUNS:-3}
reps=${REPS:-200}
root=$(pwd)
mkdir -p "$out"
work=$(mktemp -d)
res=$work/results
mkdir -p "$res"
NCU=${NCU:-ncu}
metrics=sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_warps,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum

printf 'step\trc\twall_s\n' > "$res/timings.tsv"
# timed STEP CMD...: runs CMD, appends its rc and wall time to timings.tsv, returns rc.
timed() {
  local step=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@"; rc=$?
  t1=$(date +%s.%N)
  awk -v s="$step" -v r="$rc" -v a="$t1" -v b="$t0" \
      'BEGIN { printf "%s\t%d\t%.2f\n", s, r, a - b }' >> "$res/timings.tsv"
  return $rc
}

{ date -u
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu --format=csv
  nvcc --version | tail -2; $NCU --version | tail -1; echo "metrics: $metrics"; } > "$res/env.txt" 2>&1
cat "$res/env.txt"
nvidia-smi -q > "$res/nvidia-smi.txt" 2>&1

# 1. Build (ptxas -v: registers and static shared memory of every kernel).
timed build nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$work/transpose_bench" \
    "$root/bench/transpose/transpose_bench.cu" > "$res/build.txt" 2>&1
echo "rc=$?" >> "$res/build.txt"
grep -E "Compiling|Used" "$res/build.txt" | paste - - | sed -E "s/ptxas info +: //g"
if [ ! -x "$work/transpose_bench" ]; then
  cat "$res/build.txt"; tar czf "$out/transpose_results.tar.gz" -C "$work" results; exit 2
fi
cuobjdump -sass "$work/transpose_bench" > "$res/sass.txt" 2>&1
cuobjdump -res-usage "$work/transpose_bench" > "$res/res_usage.txt" 2>&1

# 2. Checked, timed runs, with the clocks sampled alongside.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv -lms 200 > "$res/clocks.csv" 2>&1 &
smi=$!
status=0
for i in $(seq 1 "$runs"); do
  timed "run$i" "$work/transpose_bench" --reps "$reps" --tsv "$res/run$i.tsv" > "$res/run$i.txt" 2>&1
  rc=$?
  echo "rc=$rc" >> "$res/run$i.txt"
  [ $rc -eq 0 ] || status=1
done
kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
grep -h -E "WRONG|rc=" "$res"/run*.txt
tar czf "$out/transpose_results.tar.gz" -C "$work" results  # in case profiling runs out of time

# 3. One launch of each kernel under Nsight Compute: counters, the occupancy sections, and
#    the per-instruction source counters.
timed ncu_metrics timeout 240 $NCU --metrics "$metrics" --csv --print-units base \
    --cache-control none --clock-control none --log-file "$res/transpose.metrics.csv" \
    "$work/transpose_bench" --check-only > "$res/ncu_metrics.app.txt" 2>&1
echo "ncu metrics: rc=$?"
timed ncu_sections timeout 240 $NCU --section Occupancy --section LaunchStats \
    --section SpeedOfLight --page details --csv --print-units base \
    --cache-control none --clock-control none --log-file "$res/transpose.sections.csv" \
    "$work/transpose_bench" --check-only > "$res/ncu_sections.app.txt" 2>&1
echo "ncu sections: rc=$?"
timed ncu_source timeout 240 $NCU --section SourceCounters --page source --csv \
    --print-source cuda,sass --cache-control none --clock-control none \
    --log-file "$res/transpose.source.csv" "$work/transpose_bench" --check-only \
    > "$res/ncu_source.app.txt" 2>&1
echo "ncu source counters: rc=$?"

cat "$res/timings.tsv"
echo; cat "$res/run1.tsv"
gzip -9 "$res/sass.txt" "$res/transpose.sections.csv" "$res/transpose.source.csv"
tar czf "$out/transpose_results.tar.gz" -C "$work" results
ls -l "$out"
exit $status
