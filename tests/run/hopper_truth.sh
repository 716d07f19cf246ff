#!/usr/bin/env bash
# The bundled Hopper programs (examples/hopper: a warp-specialized TMA + wgmma GEMM in clusters
# of two with multicast, a FlashAttention-style forward pass) under `bankcheck run` on the CPU,
# every launch analysed, against the H200's Nsight Compute Source Counters of the same
# programs (bench/hardware/hopper_truth_results/P.program_lines.tsv): each program prints
# PASSED (its own check of the products) and every source line's shared wavefronts and ideal
# and global sectors and ideal equal the H200's (bench/device/compare_report.py), and so do its
# executions (Nsight's requests).
#
# Usage: hopper_truth.sh BANKCHECK BINDIR    (BINDIR holds the programs, built with
#        -gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo -O3)
set -u
bankcheck=$1
bin=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
truth=$root/bench/hardware/hopper_truth_results
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
for p in gemm_tma_wgmma attention_fwd; do
  "$bankcheck" run --no-progress --launches all --format json -o "$work/$p.json" -- "$bin/$p" \
    > "$work/$p.stdout" 2> "$work/$p.stderr"
  status=$?
  if [ "$status" != 0 ] || ! grep -qx PASSED "$work/$p.stdout"; then
    echo "FAIL: $p: bankcheck exit $status; the program printed:"
    cat "$work/$p.stdout"
    tail -20 "$work/$p.stderr"
    bad=1
    continue
  fi
  if ! python3 "$root/bench/device/compare_report.py" "$work/$p.json" "$truth/$p.program_lines.tsv" \
      > "$work/$p.compare" 2>&1; then
    echo "FAIL: $p differs from the H200:"
    bad=1
  fi
  cat "$work/$p.compare"
  # Executions (Nsight's requests column) per line too.
  if ! python3 - "$root" "$work/$p.json" "$truth/$p.program_lines.tsv" <<'PY'
import csv, json, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(sys.argv[1], "bench", "run"))
import compare
ours, theirs = {}, {}
for k in compare.kernels_of(json.load(open(sys.argv[2]))):
    for s in k["sites"]:
        frames = ([(f["file"], f["line"]) for f in s["nsight_lines"]] if s.get("nsight_lines")
                  else [(s["file"], s["line"])])
        for file, line in frames:
            key = (os.path.basename(file), line, s["space"])
            ours[key] = ours.get(key, 0) + s.get("requests", 0)
for r in csv.DictReader(open(sys.argv[3]), delimiter="\t"):
    key = (os.path.basename(r["file"]), int(r["line"]), r["space"])
    theirs[key] = theirs.get(key, 0) + int(r["requests"])
bad = [(k, ours.get(k, 0), n) for k, n in sorted(theirs.items()) if ours.get(k, 0) != n]
for k, got, want in bad:
    print(f"{k[0]}:{k[1]} {k[2]}: {got} executions, the H200 {want}")
print(f"executions: {len(theirs) - len(bad)} lines equal, {len(bad)} differ")
sys.exit(1 if bad else 0)
PY
  then
    echo "FAIL: $p's executions differ from the H200"
    bad=1
  fi
done
exit $bad
