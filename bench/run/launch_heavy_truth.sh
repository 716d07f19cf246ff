#!/usr/bin/env bash
# GPU truth for `bankcheck run` on the launch-heavy benchmark programs of
# examples/launch_heavy/ (programs.txt): each built with its CMakeLists.txt (static CUDA
# runtime, CUDA_ARCHITECTURES 90, -lineinfo), then, per program and independently of the
# others:
#   1. Nsight Compute's source counters of the first launch of each kernel and launch
#      configuration, the launches `bankcheck run` analyses by default:
#        ncu --section SourceCounters --filter-mode per-launch-config --launch-count 1
#            --page source --csv --print-source cuda,sass --cache-control none
#            --clock-control none PROGRAM 0 0 0
#      Those are the validation's launches (every variant and block size); the arguments
#      `0 0 0` (every variant, every block size, no timed launches) leave out the timing
#      loop, whose launches all repeat a validated configuration and are never profiled:
#      the same launches are profiled as with the default arguments, in less time (the
#      timing loop of matmul_forward alone takes 50 s on an H200);
#   2. the same launches' IDs, kernels, grids, blocks and kernel-level shared-memory counters
#      (ncu --metrics ... --csv, same filter and arguments);
#   3. the plain run with the default arguments, timed (the program's own timing table).
# bench/run/launch_lines.py then makes the per-line tables of the profiled launches.
#
# Run from the repository root on a machine with an sm_90 GPU, the CUDA toolkit (nvcc, ncu),
# CMake and python3:
#   bash bench/run/launch_heavy_truth.sh [OUTDIR] [PROGRAM ...]   (default: all of them)
# OUTDIR defaults to $OUT, then /tmp/bankcheck-launch-heavy-truth. BUDGET_S (default 200):
# no step starts after it, counted from the start (the whole set took 250 s on an H200 with
# the timing loops under ncu, 55 s of them matmul_forward's; about 3 minutes without);
# STEP_S (default 120): each command's own limit. NCU: the profiler. DRY_RUN=1 builds and
# stops (for machines without a GPU).
# Writes OUTDIR/launch_heavy_results.tar.gz (results/, below) and OUTDIR/truth.log.
#
# results/ (measured on an H200: bench/run/measured/launch_heavy/):
#   env.txt, timings.tsv (program, step, rc, wall_s), build.txt
#   NAME.source.csv[.gz]   step 1's CSV; NAME.source.app.txt: the program's output, rc=, passed=
#   NAME.launches.csv      step 2's CSV; NAME.launches.app.txt
#   NAME.run.txt           step 3's output, rc=, passed=
#   NAME.launches.tsv, NAME.launch_lines.tsv, NAME.lines.tsv, NAME.program_lines.tsv,
#   NAME.lines.log         launch_lines.py's tables (program_lines: every profiled launch)
set -uo pipefail

out=${1:-${OUT:-/tmp/bankcheck-launch-heavy-truth}}
[ $# -gt 0 ] && shift
budget=${BUDGET_S:-200}
step_s=${STEP_S:-120}
NCU=${NCU:-ncu}
root=$(pwd)
list=$root/examples/launch_heavy/programs.txt
if [ ! -f "$list" ]; then
  echo "run from the repository root: $list not found" >&2
  exit 2
fi
mapfile -t all < <(grep -E '^[a-z_]+$' "$list")
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=("${all[@]}")
for p in "${programs[@]}"; do
  printf '%s\n' "${all[@]}" | grep -qx "$p" || { echo "no program $p in $list" >&2; exit 2; }
done

mkdir -p "$out"
exec > >(tee "$out/truth.log") 2>&1
work=$(mktemp -d)
res=$work/results
mkdir -p "$res"
start=$(date +%s.%N)
elapsed() { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'; }
over_budget() { awk -v a="$(elapsed)" -v b="$budget" 'BEGIN { exit !(a > b) }'; }
printf 'program\tstep\trc\twall_s\n' > "$res/timings.tsv"
timed() {  # timed PROGRAM STEP CMD...: runs CMD, appends its rc and wall time to timings.tsv
  local prog=$1 step=$2; shift 2
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@"
  rc=$?
  t1=$(date +%s.%N)
  awk -v r="$prog" -v s="$step" -v c="$rc" -v a="$t1" -v b="$t0" \
      'BEGIN { printf "%s\t%s\t%d\t%.2f\n", r, s, c, a - b }' >> "$res/timings.tsv"
  return "$rc"
}
passed() { grep -qx 'PASSED' "$1" && echo yes || echo no; }

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total \
    --format=csv,noheader; "$NCU" --version | tail -1; nvcc --version | tail -1
  cmake --version | head -1; git -C "$root" log -1 --format='commit %H %cd' 2>/dev/null; } \
  > "$res/env.txt" 2>&1
cat "$res/env.txt"

# Build: the programs' own CMakeLists.txt, the static-runtime targets only.
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
targets=()
for p in "${programs[@]}"; do targets+=(--target "launch_heavy_$p"); done
{ cmake -S "$root/examples/launch_heavy" -B "$work/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$work/build" -j "$(nproc)" "${targets[@]}"; } > "$res/build.txt" 2>&1
echo "rc=$?" >> "$res/build.txt"
echo "build: $(tail -1 "$res/build.txt"), $(elapsed) s"
if [ -n "${DRY_RUN:-}" ]; then
  ls -l "$work/build/bin" >> "$res/build.txt" 2>&1
  tar czf "$out/launch_heavy_results.tar.gz" -C "$work" results
  echo "DRY_RUN: stopping after the build"
  rm -rf "$work"
  exit 0
fi

wanted=(
  launch__grid_size launch__block_size launch__registers_per_thread
  launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
)
metrics=$(IFS=,; echo "${wanted[*]}")
filter=(--filter-mode per-launch-config --launch-count 1)

for p in "${programs[@]}"; do
  bin=$work/build/bin/$p
  if [ ! -x "$bin" ]; then echo "== $p was not built"; continue; fi
  if over_budget; then echo "== $p: skipped, time budget"; continue; fi
  (cd "$work" && timed "$p" ncu_source timeout "$step_s" "$NCU" --section SourceCounters \
      "${filter[@]}" --page source --csv --print-source cuda,sass --cache-control none \
      --clock-control none --log-file "$res/$p.source.csv" "$bin" 0 0 0) > "$res/$p.source.app.txt" 2>&1
  echo "rc=$? passed=$(passed "$res/$p.source.app.txt")" >> "$res/$p.source.app.txt"
  echo "== $p source counters: $(tail -1 "$res/$p.source.app.txt"), $(elapsed) s"

  if over_budget; then echo "   skipping launch metrics: time budget"; continue; fi
  (cd "$work" && timed "$p" ncu_launches timeout "$step_s" "$NCU" --metrics "$metrics" \
      "${filter[@]}" --csv --print-units base --cache-control none --clock-control none \
      --log-file "$res/$p.launches.csv" "$bin" 0 0 0) > "$res/$p.launches.app.txt" 2>&1
  echo "rc=$? passed=$(passed "$res/$p.launches.app.txt")" >> "$res/$p.launches.app.txt"
  echo "   launch metrics: $(tail -1 "$res/$p.launches.app.txt"), $(elapsed) s"

  if over_budget; then echo "   skipping the plain run: time budget"; continue; fi
  (cd "$work" && timed "$p" plain timeout "$step_s" "$bin") > "$res/$p.run.txt" 2>&1
  echo "rc=$? passed=$(passed "$res/$p.run.txt")" >> "$res/$p.run.txt"
  echo "   plain run: $(tail -1 "$res/$p.run.txt"), $(elapsed) s"
done

for p in "${programs[@]}"; do
  [ -s "$res/$p.source.csv" ] || continue
  python3 "$root/bench/run/launch_lines.py" "$res/$p.source.csv" "$res/$p.launches.csv" \
      > "$res/$p.lines.log" 2>&1
  echo "launch_lines $p: rc=$? $(head -1 "$res/$p.lines.log")"
done
find "$res" -type f \( -name '*.csv' -o -name '*.txt' \) -size +200k -exec gzip -9 {} +
echo
cat "$res/timings.tsv"
tar czf "$out/launch_heavy_results.tar.gz" -C "$work" results
rm -rf "$work"
ls -l "$out"
echo "total $(elapsed) s"
sleep 1  # lets tee write the last lines to truth.log
