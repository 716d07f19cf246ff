#!/usr/bin/env bash
# The GPU backend of `bankcheck run` on the H100: every program of examples/run (programs.txt)
# built as examples/run/CMakeLists.txt builds it, then
#   1. per-line agreement of `bankcheck run --backend gpu` with Nsight Compute
#      (bench/run/compare.py against the truth in RESULTS, default bench/run/measured/h100: the
#      same programs and arguments under ncu's source counters), both modes (--launches all
#      against the whole run, the default against the launches it lists);
#   2. speed per run: the plain program, `bankcheck run --backend gpu`, and
#      `ncu --section SourceCounters --page source --csv --print-source cuda,sass`, each timed
#      on the same machine (REPS times, the median counts).
#
# Run from the repository root on a machine with an sm_90 GPU, nvcc and ncu:
#   bash bench/device/gpu_run.sh CARRY [OUTDIR] [REPS]
# CARRY holds bankcheck built elsewhere: bin/bankcheck, lib/bankcheck-gpu/ (libbankcheck-gpu.so,
# bankcheck-patches.fatbin) and the shared libraries they need (lib/libfmt.so.9 ...).
# Writes OUTDIR/gpu_compare.md, gpu_compare.log, gpu_speed.tsv and gpu_speed.txt.
set -uo pipefail
carry=$(readlink -f "$1")
out=${2:-${OUT:-/tmp/bankcheck-gpu-run}}
reps=${3:-1}
results=${RESULTS:-bench/run/measured/h100}
root=$(pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BANKCHECK_GPU_DIR="$carry/lib/bankcheck-gpu"
bankcheck=$carry/bin/bankcheck
bins=$(mktemp -d)
. "$root/bench/run/programs.sh"
read_manifest "$root"
build_programs "$root" "$bins"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$bankcheck" --version

echo "== agreement with Nsight Compute (RESULTS=$results)"
python3 bench/run/compare.py "$bankcheck" "$bins" --backend gpu --mode "${MODE:-both}" \
  --results "$results" --markdown "$out/gpu_compare.md" ${RUNS:+--runs "$RUNS"} \
  > "$out/gpu_compare.log" 2>&1
tail -3 "$out/gpu_compare.log"

echo "== speed"
now() { date +%s.%N; }
printf 'run\trep\tplain_s\tgpu_s\tncu_s\tgpu_rc\tncu_rc\n' > "$out/gpu_speed.tsv"
for rep in $(seq 1 "$reps"); do
  for r in "${runs[@]}"; do
    [ -n "${RUNS:-}" ] && [[ ",$RUNS," != *",$r,"* ]] && continue
    p=${run_prog[$r]}
    read -r -a args <<< "${run_args[$r]}"
    cd "$root/examples/run/${prog_dir[$p]}"
    t0=$(now); "$bins/$p" "${args[@]}" > /dev/null 2>&1; t1=$(now)
    "$bankcheck" run --backend gpu --no-progress --format json -o "$bins/$r.json" -- \
      "$bins/$p" "${args[@]}" > /dev/null 2> "$bins/$r.gpu.err"
    grc=$?; t2=$(now)
    timeout 120 ncu --section SourceCounters --page source --csv --print-source cuda,sass \
      "$bins/$p" "${args[@]}" > /dev/null 2>&1
    nrc=$?; t3=$(now)
    cd "$root"
    [ "$grc" = 0 ] || { echo "$r: bankcheck rc=$grc"; tail -5 "$bins/$r.gpu.err"; }
    awk -v r="$r" -v rep="$rep" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v g="$grc" -v n="$nrc" \
      'BEGIN { printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\n", r, rep, b - a, c - b, d - c, g, n }' \
      >> "$out/gpu_speed.tsv"
  done
done
python3 - "$out/gpu_speed.tsv" > "$out/gpu_speed.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
runs = {}
for r in rows:
    runs.setdefault(r["run"], []).append(r)
print("| run | plain (s) | bankcheck run --backend gpu (s) | ncu SourceCounters (s) | ncu / bankcheck (goal >= 10) | slowdown vs plain |")
print("|---|---:|---:|---:|---:|---:|")
ratios = []
for name, rs in runs.items():
    med = lambda k: statistics.median(float(x[k]) for x in rs)
    p, g, n = med("plain_s"), med("gpu_s"), med("ncu_s")
    ratios.append(n / g)
    print(f"| {name} | {p:.2f} | {g:.2f} | {n:.2f} | {n / g:.1f}x | {g / p:.1f}x |")
if ratios:
    print(f"\nncu / bankcheck: min {min(ratios):.1f}x, median {statistics.median(ratios):.1f}x, max {max(ratios):.1f}x; "
          f"{sum(r >= 10 for r in ratios)} of {len(ratios)} runs at 10x or more")
PY
cat "$out/gpu_speed.txt"
