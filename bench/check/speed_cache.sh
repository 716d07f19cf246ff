#!/usr/bin/env bash
# The compile cache against Nsight Compute, on the GPU machine: per file, `bankcheck check F
# --blocks all` with an empty cache (nvcc, and ptxas for the checked kernels only), the same
# again (the cache's PTX and cubin: no nvcc, no ptxas), and `ncu --section SourceCounters
# --page source --csv` of the file's own program, REPS times each in turn.
#   bash bench/check/speed_cache.sh CARRY [OUTDIR] [REPS] [FILES...]
# CARRY as for bench/device/gpu_run.sh (bin/bankcheck, lib/ with libfmt.so.9). Writes
# OUTDIR/speed_cache.tsv (every run) and prints per file the medians and ratios.
set -uo pipefail
carry=$(readlink -f "$1")
out=${2:-${OUT:-/tmp/bankcheck-speed-cache}}
reps=${3:-3}
shift 3 2>/dev/null || shift $#
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(examples/blind/*.cu examples/tensor/hgemm.cu examples/tensor/attention.cu examples/tuned/async.cu examples/transpose.cu)
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bankcheck=$carry/bin/bankcheck
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "${files[@]}"; do
  b=$(basename "$f" .cu)
  nvcc -arch=sm_90 -lineinfo -O3 -o "$work/$b" "$f" > /dev/null 2>&1 || echo "build $f failed"
done
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f", a - b }'; }
printf 'file\tstep\trep\trc\twall_s\n' > "$out/speed_cache.tsv"
for rep in $(seq 1 "$reps"); do
  for f in "${files[@]}"; do
    b=$(basename "$f" .cu)
    export BANKCHECK_CACHE_DIR="$work/cache-$b"
    rm -rf "$BANKCHECK_CACHE_DIR"
    for step in cold warm; do
      t0=$(now)
      "$bankcheck" check "$f" --blocks all --format json -o "$work/$b.$step.json" > /dev/null 2> "$work/$b.$step.err"
      rc=$?
      printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$step" "$rep" "$rc" "$(since "$t0")" >> "$out/speed_cache.tsv"
    done
    cmp -s "$work/$b.cold.json" "$work/$b.warm.json" || echo "$f: the cached run's report differs" >> "$out/speed_cache.tsv.notes"
    t0=$(now)
    timeout 300 ncu --section SourceCounters --page source --csv --print-source cuda,sass \
      "$work/$b" > "$work/$b.csv" 2>&1
    rc=$?
    printf '%s\tncu\t%s\t%s\t%s\n' "$f" "$rep" "$rc" "$(since "$t0")" >> "$out/speed_cache.tsv"
  done
done
python3 - "$out/speed_cache.tsv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
files = list(dict.fromkeys(r["file"] for r in rows))
print(f"{'file':36} {'cold s':>8} {'warm s':>8} {'ncu s':>8} {'ncu/cold':>9} {'ncu/warm':>9}  rc")
for f in files:
    med = {s: statistics.median(float(r["wall_s"]) for r in rows if r["file"] == f and r["step"] == s)
           for s in ("cold", "warm", "ncu")}
    rcs = sorted({r["rc"] for r in rows if r["file"] == f and r["step"] != "ncu"})
    print(f"{f:36} {med['cold']:8.2f} {med['warm']:8.2f} {med['ncu']:8.2f} "
          f"{med['ncu'] / med['cold']:9.1f} {med['ncu'] / med['warm']:9.1f}  {','.join(rcs)}")
PY
[ -f "$out/speed_cache.tsv.notes" ] && cat "$out/speed_cache.tsv.notes"
exit 0
