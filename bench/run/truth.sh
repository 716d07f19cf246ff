#!/usr/bin/env bash
# H100 truth for `bankcheck run`: builds every program of examples/run/programs.txt with the
# flags of examples/run/CMakeLists.txt, runs each `run` line plainly, then under Nsight
# Compute's source counters (every launch) and once more for each launch's ID, kernel,
# grid, block and kernel-level shared-memory counters; all timed, within one time budget.
#
# Run from the repository root on a machine with an sm_90 GPU, nvcc, ncu, cuobjdump and
# nvdisasm:
#   bash bench/run/truth.sh [OUTDIR] [RUN ...]     RUN: names from programs.txt (default all)
# OUTDIR defaults to $OUT, then /tmp/bankcheck-run-truth. BUDGET_S (default 360): no ncu
# step starts after it; STEP_S (default 60): each command's own limit; NCU, NVCC: the tools.
# DRY_RUN=1 builds and stops (for machines without a GPU).
# Writes two files to OUTDIR: truth_results.tar.gz (results/, below) and truth.log (this
# script's console output).
#
# results/ (RUN as in programs.txt, NAME the program):
#   env.txt, timings.tsv (run, step, rc, wall_s), query_metrics.txt, metrics_used.txt
#   build/NAME.build.txt     nvcc's output and rc=
#   build/NAME.SRC.ptx       the PTX of each source, same flags
#   build/NAME.sass.txt      cuobjdump -sass; NAME.sass_inline.txt: nvdisasm -gi -c of its cubin
#   RUN.run.txt              the plain run's output, then rc= and passed=yes|no
#   RUN.source.csv.gz        ncu --section SourceCounters --page source --csv
#                            --print-source cuda,sass (every launch, in launch order)
#   RUN.source.app.txt       the program's output under that ncu run, rc=, passed=
#   RUN.launches.csv.gz      ncu --metrics (launch__* and the shared counters) --csv: one row
#                            per launch and metric, with ID, kernel, block and grid
#   RUN.launches.tsv, RUN.launch_lines.tsv, RUN.lines.tsv, RUN.program_lines.tsv,
#   RUN.lines.log            bench/run/launch_lines.py on the two CSVs
set -uo pipefail

out=${1:-${OUT:-/tmp/bankcheck-run-truth}}
[ $# -gt 0 ] && shift
budget=${BUDGET_S:-360}
step_s=${STEP_S:-60}
NCU=${NCU:-ncu}
NVCC=${NVCC:-nvcc}
root=$(pwd)
runs_wanted=("$@")
manifest=$root/examples/run/programs.txt
if [ ! -f "$manifest" ]; then
  echo "run from the repository root: $manifest not found" >&2
  exit 2
fi

mkdir -p "$out"
exec > >(tee "$out/truth.log") 2>&1
work=$(mktemp -d)
res=$work/results
bins=$work/bin
mkdir -p "$res/build" "$bins"
start=$(date +%s.%N)
elapsed() { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'; }
over_budget() { awk -v a="$(elapsed)" -v b="$budget" 'BEGIN { exit !(a > b) }'; }

printf 'run\tstep\trc\twall_s\n' > "$res/timings.tsv"
timed() {  # timed RUN STEP CMD...: runs CMD, appends its rc and wall time to timings.tsv
  local run=$1 step=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@"
  rc=$?
  t1=$(date +%s.%N)
  awk -v r="$run" -v s="$step" -v c="$rc" -v a="$t1" -v b="$t0" \
      'BEGIN { printf "%s\t%s\t%d\t%.2f\n", r, s, c, a - b }' >> "$res/timings.tsv"
  return "$rc"
}
passed() { grep -qx 'PASSED' "$1" && echo yes || echo no; }

# The manifest: program NAME DIR SOURCE...; run RUN NAME ARG...
. "$root/bench/run/programs.sh"
read_manifest "$root"
if [ ${#runs_wanted[@]} -gt 0 ]; then
  for r in "${runs_wanted[@]}"; do
    [ -n "${run_prog[$r]:-}" ] || { echo "no run $r in programs.txt" >&2; exit 2; }
  done
  runs=("${runs_wanted[@]}")
fi
echo "${#progs[@]} programs, ${#runs[@]} runs: ${runs[*]}"

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  "$NCU" --version | tail -1; "$NVCC" --version | tail -1; nvdisasm --version | tail -1
  git -C "$root" log -1 --format='commit %H %cd' 2>/dev/null; } > "$res/env.txt" 2>&1
cat "$res/env.txt"

# 1. Build, in parallel: the flags of examples/run/CMakeLists.txt in a Release build
#    (CMake adds -O3 -DNDEBUG), absolute source paths as CMake passes them.
flags=("${run_flags[@]}" "-Xcompiler=-Wall,-Wextra")
build_pids=()
for p in "${progs[@]}"; do
  (
    dir=$root/examples/run/${prog_dir[$p]}
    srcs=()
    for s in ${prog_srcs[$p]}; do srcs+=("$dir/$s"); done
    "$NVCC" "${flags[@]}" -o "$bins/$p" "${srcs[@]}" > "$res/build/$p.build.txt" 2>&1
    echo "rc=$?" >> "$res/build/$p.build.txt"
    for s in "${srcs[@]}"; do
      "$NVCC" "${flags[@]}" -ptx -o "$res/build/$p.$(basename "$s" .cu).ptx" "$s" > /dev/null 2>&1
    done
  ) &
  build_pids+=($!)
done
wait "${build_pids[@]}"  # not a bare wait: that would also wait for the tee above
for p in "${progs[@]}"; do
  echo "build $p: $(tail -1 "$res/build/$p.build.txt")"
  [ -x "$bins/$p" ] || continue
  command -v cuobjdump > /dev/null || continue
  cuobjdump -sass "$bins/$p" > "$res/build/$p.sass.txt" 2>&1
  d=$work/cubin/$p
  mkdir -p "$d"
  (cd "$d" && cuobjdump -xelf all "$bins/$p" > /dev/null 2>&1)
  for c in "$d"/*.cubin; do
    [ -f "$c" ] && nvdisasm -gi -c "$c" >> "$res/build/$p.sass_inline.txt" 2>&1
  done
done
echo "built: $(elapsed) s"
if [ -n "${DRY_RUN:-}" ]; then
  tar czf "$out/truth_results.tar.gz" -C "$work" results
  echo "DRY_RUN: stopping after the build"
  exit 0
fi

# Kernel-level counters where this ncu knows them (an unknown name fails the whole run),
# with the launch's resources.
"$NCU" --query-metrics > "$res/query_metrics.txt" 2>&1
wanted=(
  launch__grid_size launch__block_size launch__registers_per_thread
  launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
  smsp__inst_executed_op_shared_atom.sum
)
metrics=""
for m in "${wanted[@]}"; do
  if grep -qw -- "${m%.sum}" "$res/query_metrics.txt"; then metrics+="${metrics:+,}$m"; fi
done
[ -n "$metrics" ] || metrics=smsp__inst_executed_op_shared_ld.sum
echo "$metrics" | tr , '\n' > "$res/metrics_used.txt"
echo "metrics: $metrics"

# 2-4 per run, in the program's directory (where its input files are): the plain run, the
# source counters of every launch, the launches' IDs and counters.
for r in "${runs[@]}"; do
  p=${run_prog[$r]}
  bin=$bins/$p
  cwd=$root/examples/run/${prog_dir[$p]}
  read -r -a args <<< "${run_args[$r]}"
  if [ ! -x "$bin" ]; then echo "== $r: $p was not built"; continue; fi

  (cd "$cwd" && timed "$r" plain timeout "$step_s" "$bin" "${args[@]}") > "$res/$r.run.txt" 2>&1
  rc=$?
  echo "rc=$rc passed=$(passed "$res/$r.run.txt")" >> "$res/$r.run.txt"
  echo "== $r ($p ${args[*]}): $(tail -1 "$res/$r.run.txt"), $(elapsed) s"

  if over_budget; then echo "   skipping ncu for $r: time budget"; continue; fi
  (cd "$cwd" && timed "$r" ncu_source timeout "$step_s" "$NCU" --section SourceCounters \
      --page source --csv --print-source cuda,sass --cache-control none --clock-control none \
      --log-file "$res/$r.source.csv" "$bin" "${args[@]}") > "$res/$r.source.app.txt" 2>&1
  rc=$?
  echo "rc=$rc passed=$(passed "$res/$r.source.app.txt")" >> "$res/$r.source.app.txt"
  echo "   source counters: $(tail -1 "$res/$r.source.app.txt"), $(elapsed) s"

  if over_budget; then echo "   skipping launch metrics for $r: time budget"; continue; fi
  (cd "$cwd" && timed "$r" ncu_launches timeout "$step_s" "$NCU" --metrics "$metrics" --csv \
      --print-units base --cache-control none --clock-control none \
      --log-file "$res/$r.launches.csv" "$bin" "${args[@]}") > "$res/$r.launches.app.txt" 2>&1
  rc=$?
  echo "rc=$rc passed=$(passed "$res/$r.launches.app.txt")" >> "$res/$r.launches.app.txt"
  echo "   launch metrics: $(tail -1 "$res/$r.launches.app.txt"), $(elapsed) s"
done

# 5. Per-launch and per-line tables; compress the big files; pack.
for r in "${runs[@]}"; do
  [ -s "$res/$r.source.csv" ] || continue
  python3 "$root/bench/run/launch_lines.py" "$res/$r.source.csv" "$res/$r.launches.csv" \
      > "$res/$r.lines.log" 2>&1
  echo "launch_lines $r: rc=$? $(head -1 "$res/$r.lines.log")"
done
find "$res" -type f \( -name '*.csv' -o -name '*.txt' -o -name '*.ptx' \) -size +200k -exec gzip -9 {} +
echo
cat "$res/timings.tsv"
tar czf "$out/truth_results.tar.gz" -C "$work" results
size=$(stat -c %s "$out/truth_results.tar.gz")
if [ "$size" -gt 15000000 ]; then  # over what comes back: keep the tables, drop the raw CSVs
  echo "truth_results.tar.gz is $size bytes; leaving out the raw source CSVs"
  tar czf "$out/truth_results.tar.gz" -C "$work" --exclude='*.source.csv.gz' results
fi
rm -rf "$work"
ls -l "$out"
echo "total $(elapsed) s"
sleep 1  # lets tee write the last lines to truth.log
