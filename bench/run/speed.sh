#!/usr/bin/env bash
# How long a user waits for per-line counts of a whole program: `bankcheck run` (the program
# on the CPU, every kernel emulated, the first launch of each configuration analysed on every
# CTA) against `ncu --section SourceCounters` of the same program and arguments, both on the
# GPU machine. The ncu times come from truth.sh's timings.tsv of the same call; bankcheck runs
# REPS times (the median counts).
#
# Run from the repository root on the GPU machine, after bench/run/truth.sh:
#   bash bench/run/speed.sh CARRY TIMINGS [OUTDIR] [REPS]
# CARRY holds a bankcheck built elsewhere (bankcheck, lib/bankcheck-cuda/libcuda.so.1 and
# the shared libraries they need: libfmt.so.9, libzstd.so.1, liblz4.so.1). TIMINGS is truth.sh's
# results/timings.tsv. Writes OUTDIR/speed.tsv and OUTDIR/speed.txt (the table).
set -uo pipefail
carry=$(readlink -f "$1")
timings=$(readlink -f "$2")
out=${3:-${OUT:-/tmp/bankcheck-run-speed}}
reps=${4:-3}
root=$(pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BANKCHECK_CUDA_DIR="$carry/lib/bankcheck-cuda"
bankcheck=$carry/bankcheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/bench/run/programs.sh"
read_manifest "$root"
build_programs "$root" "$work"
now() { date +%s.%N; }
printf 'run\trep\trc\twall_s\n' > "$out/speed.tsv"
for rep in $(seq 1 "$reps"); do
  for r in "${runs[@]}"; do
    p=${run_prog[$r]}
    read -r -a args <<< "${run_args[$r]}"
    t0=$(now)
    (cd "$root/examples/run/${prog_dir[$p]}" &&
     timeout 120 "$bankcheck" run --no-progress --format json -o "$work/$r.json" -- \
       "$work/$p" "${args[@]}" > "$work/$r.out" 2> "$work/$r.err")
    rc=$?
    t1=$(now)
    [ "$rc" = 0 ] || { echo "$r rep $rep: rc=$rc"; tail -3 "$work/$r.err"; }
    printf '%s\t%s\t%s\t%s\n' "$r" "$rep" "$rc" "$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')" >> "$out/speed.tsv"
  done
done
python3 - "$out/speed.tsv" "$timings" > "$out/speed.txt" <<'PY'
import csv, statistics, sys
ours = {}
for r in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    ours.setdefault(r["run"], []).append(float(r["wall_s"]))
ncu, plain = {}, {}
for r in csv.DictReader(open(sys.argv[2]), delimiter="\t"):
    if r["step"] == "ncu_source": ncu[r["run"]] = float(r["wall_s"])
    if r["step"] == "plain": plain[r["run"]] = float(r["wall_s"])
print(f"{'run':16} {'plain s':>8} {'ncu s':>8} {'bankcheck s':>12} {'ratio':>7}   (target: ratio >= 10)")
ratios = []
for run in ours:
    b = statistics.median(ours[run])
    n = ncu.get(run)
    ratio = n / b if n else float("nan")
    if n: ratios.append(ratio)
    print(f"{run:16} {plain.get(run, float('nan')):8.2f} {n if n else float('nan'):8.2f} {b:12.2f} {ratio:7.1f}")
if ratios:
    print(f"median ratio {statistics.median(ratios):.1f}, lowest {min(ratios):.1f}")
PY
cat "$out/speed.txt"
