#!/usr/bin/env bash
# Build, run and profile a chosen list of example programs on an sm_90 GPU (H100) with
# Nsight Compute, within one time budget: run.sh's steps for any examples/**/*.cu, with the
# cubins, the inline-aware SASS line table and the shared-atomic, ldmatrix and cp.async
# counters added.
#
# Run from the repository root on a machine with the GPU, nvcc, ncu, cuobjdump, nvdisasm:
#   bash bench/check/run_new.sh OUTDIR [examples/A.cu examples/tensor/B.cu ...]
# With no files: examples/sgemm.cu, examples/histogram.cu and examples/tensor/*.cu.
# OUTDIR defaults to $OUT, then /tmp/bankcheck-check. BUDGET_S (default 400) is the time
# after which no further ncu step starts; each step is also cut off at STEP_S (90).
# Writes at most two files to OUTDIR:
#   new_results.tar.gz   results/ as below (unpack with: tar xzf ... -C bench/check)
#   new_reports.tar.gz   the saved .ncu-rep reports, when under 15 MB
#
# Per example, REL = its path under examples/ without .cu (sgemm, tensor/hgemm), in
# results/ (so examples/tensor/* land in results/tensor/, apart from run.sh's examples):
#   REL.build.txt          nvcc -arch=sm_90 -lineinfo -O3 output, then rc=
#   REL.ptx                nvcc -ptx of the same flags (the PTX that bankcheck reads)
#   REL.sm_90.cubin        the cubin extracted from the binary (cuobjdump -xelf)
#   REL.sass.txt           cuobjdump -sass
#   REL.sass_lines.txt     nvdisasm -g -c of the cubin: SASS with file:line comments
#   REL.sass_inline.txt    nvdisasm -gi -c: the same with each inline frame
#   REL.run.txt            the plain run's output (one "KERNEL: OK|WRONG" line each), rc=
#   REL.source.csv[.gz]    ncu --section SourceCounters --page source --csv --print-source cuda,sass
#   REL.source.app.txt     the program's own output under that ncu run
#   REL.metrics.csv        ncu --metrics (kernel-level shared counters, see below)
#   REL.source_sass.csv[.gz], REL.details.csv   the saved report as SASS only, details page
#   REL.lines.tsv, REL.global.tsv, REL.lines.log   bench/check/lines.py on REL.source.csv
#   timings.tsv, env.txt, query_metrics.txt, metrics_used.txt
set -uo pipefail
out=${1:-${OUT:-/tmp/bankcheck-check}}
[ $# -gt 0 ] && shift
budget=${BUDGET_S:-400}
step_s=${STEP_S:-90}
root=$(pwd)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(examples/sgemm.cu examples/histogram.cu examples/tensor/*.cu)
fi
mkdir -p "$out"
work=$(mktemp -d)
res=$work/results
mkdir -p "$res" "$work/bin" "$work/cubin" "$work/rep"
start=$(date +%s.%N)
elapsed() { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'; }
over_budget() { awk -v a="$(elapsed)" -v b="$budget" 'BEGIN { exit !(a > b) }'; }
NCU=${NCU:-ncu}

printf 'example\tstep\trc\twall_s\n' > "$res/timings.tsv"
timed() {  # timed REL STEP CMD...: runs CMD, appends rc and wall time to timings.tsv
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
  $NCU --version | tail -1; nvcc --version | tail -1; nvdisasm --version | tail -1; } > "$res/env.txt" 2>&1
cat "$res/env.txt"

# Kernel-level counters: run.sh's six, then atomics, ldmatrix/stmatrix and cp.async (LDGSTS)
# where this ncu knows them (an unknown name would fail the whole ncu run).
$NCU --query-metrics > "$res/query_metrics.txt" 2>&1
always=(
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
)
extra=(
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  smsp__inst_executed_op_shared_atom.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  smsp__inst_executed_op_ldsm.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum smsp__inst_executed_op_stsm.sum
  smsp__inst_executed_op_ldgsts.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
)
metrics=$(IFS=,; echo "${always[*]}")
for m in "${extra[@]}"; do
  if grep -qw -- "${m%.sum}" "$res/query_metrics.txt"; then metrics+=",$m"; fi
done
echo "$metrics" | tr , '\n' > "$res/metrics_used.txt"
echo "metrics: $metrics"

rels=()
for f in "${files[@]}"; do
  rel=${f#examples/}
  rel=${rel%.cu}
  rels+=("$rel")
  mkdir -p "$res/$(dirname "$rel")" "$work/bin/$(dirname "$rel")" "$work/rep/$(dirname "$rel")"
done

# 1. Build all in parallel (absolute source paths, so that ncu finds the sources).
for i in "${!files[@]}"; do
  f=${files[$i]} rel=${rels[$i]}
  ( nvcc -arch=sm_90 -lineinfo -O3 -o "$work/bin/$rel" "$root/$f" > "$res/$rel.build.txt" 2>&1
    echo "rc=$?" >> "$res/$rel.build.txt"
    nvcc -arch=sm_90 -lineinfo -O3 -ptx -o "$res/$rel.ptx" "$root/$f" > /dev/null 2>&1 ) &
done
wait
for rel in "${rels[@]}"; do
  echo "build $rel: $(tail -1 "$res/$rel.build.txt")"
  [ -x "$work/bin/$rel" ] || continue
  cuobjdump -sass "$work/bin/$rel" > "$res/$rel.sass.txt" 2>&1
  d=$work/cubin/$rel
  mkdir -p "$d"
  ( cd "$d" && cuobjdump -xelf all "$work/bin/$rel" > /dev/null 2>&1 )
  c=$(ls "$d"/*.cubin 2>/dev/null | head -1)
  if [ -n "$c" ]; then
    cp "$c" "$res/$rel.sm_90.cubin"
    nvdisasm -g -c "$c" > "$res/$rel.sass_lines.txt" 2>&1
    nvdisasm -gi -c "$c" > "$res/$rel.sass_inline.txt" 2>&1
  fi
done
echo "built: $(elapsed) s"

# 2. Plain runs.
for rel in "${rels[@]}"; do
  [ -x "$work/bin/$rel" ] || continue
  timed "$rel" plain timeout "$step_s" "$work/bin/$rel" > "$res/$rel.run.txt" 2>&1
  echo "rc=$?" >> "$res/$rel.run.txt"
  echo "== $rel"; cat "$res/$rel.run.txt"
done

# 3. Source counters, as a user runs them (timed).
for rel in "${rels[@]}"; do
  [ -x "$work/bin/$rel" ] || continue
  if over_budget; then echo "skipping source counters of $rel: time budget"; continue; fi
  timed "$rel" ncu_source timeout "$step_s" $NCU --section SourceCounters --page source --csv \
      --print-source cuda,sass --cache-control none --clock-control none \
      --log-file "$res/$rel.source.csv" "$work/bin/$rel" > "$res/$rel.source.app.txt" 2>&1
  echo "ncu source $rel: rc=$? $(wc -l < "$res/$rel.source.csv") lines, $(elapsed) s so far"
done

# 4. Kernel-level counters.
for rel in "${rels[@]}"; do
  [ -x "$work/bin/$rel" ] || continue
  if over_budget; then echo "skipping metrics of $rel: time budget"; continue; fi
  timed "$rel" ncu_metrics timeout "$step_s" $NCU --metrics "$metrics" --csv --print-units base \
      --cache-control none --clock-control none \
      --log-file "$res/$rel.metrics.csv" "$work/bin/$rel" > "$res/$rel.metrics.app.txt" 2>&1
  echo "ncu metrics $rel: rc=$? $(elapsed) s so far"
done

# Per-line tables, then a first pack in case the optional step runs out of time.
for rel in "${rels[@]}"; do
  [ -s "$res/$rel.source.csv" ] || continue
  python3 "$root/bench/check/lines.py" "$res/$rel.source.csv" > "$res/$rel.lines.log" 2>&1
  echo "lines.py $rel: rc=$? $(head -1 "$res/$rel.lines.log")"
done
tar czf "$out/new_results.tar.gz" -C "$work" results

# 5. Optional, while the budget lasts: a saved report, printed as SASS only and as details.
for rel in "${rels[@]}"; do
  [ -x "$work/bin/$rel" ] || continue
  if over_budget; then echo "skipping reports from $rel on: time budget"; break; fi
  timed "$rel" ncu_report timeout "$step_s" $NCU --section SourceCounters --import-source yes \
      --cache-control none --clock-control none -f -o "$work/rep/$rel" "$work/bin/$rel" \
      > "$res/$rel.report.app.txt" 2>&1
  [ -f "$work/rep/$rel.ncu-rep" ] || continue
  $NCU -i "$work/rep/$rel.ncu-rep" --page source --csv --print-source sass > "$res/$rel.source_sass.csv" 2>&1
  $NCU -i "$work/rep/$rel.ncu-rep" --page details --csv > "$res/$rel.details.csv" 2>&1
  echo "report $rel: $(elapsed) s so far"
done

# Compress the big ones; pack.
find "$res" -type f \( -name '*.csv' -o -name '*.txt' -o -name '*.ptx' \) -size +1000k -exec gzip -9 {} +
echo; cat "$res/timings.tsv"
tar czf "$out/new_results.tar.gz" -C "$work" results
tar czf "$work/reports.tar.gz" -C "$work" rep
[ "$(stat -c %s "$work/reports.tar.gz")" -lt 15000000 ] && cp "$work/reports.tar.gz" "$out/new_reports.tar.gz"
ls -l "$out"
echo "total $(elapsed) s"
