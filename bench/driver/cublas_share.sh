#!/usr/bin/env bash
# What share of a cuBLAS-using program's launches bankcheck's CPU device cannot run: cuBLAS
# ships its sm_90 kernels as SASS only, so each of their launches returns
# CUDA_ERROR_NO_BINARY_FOR_GPU and the report lists it (not_run), while the program's own
# kernels run and are analysed. The program is tests/run/cublas_mix.cu, a benchmark in the style
# of an LLM-training code base's (own kernels validated against the CPU, cublasSgemm and
# cublasLtMatmul, then timing loops of REPEATS launches each).
#
#   bash bench/driver/cublas_share.sh [BUILD] [REPEATS]     (repository root; default build 1000)
#
# Writes $OUT/cublas_share.txt: the launches that ran and those that did not, per kernel, the
# share, the wall time and the peak resident set. On a machine with a GPU it also counts the
# kernels each call really launches there (ncu, REPEATS_GPU timing rounds, default 20), in
# $OUT/gpu_kernels.csv, since a cuBLAS call whose first kernel fails launches no more.
set -uo pipefail
build=$(readlink -f "${1:-build}")
repeats=${2:-1000}
out=${OUT:-/tmp/bankcheck-cublas-share}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -std=c++17 -O3 -lineinfo -g -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
  -o "$work/cublas_mix" tests/run/cublas_mix.cu -lcublas -lcublasLt || exit 1
/usr/bin/time -v "$build/tools/bankcheck/bankcheck" run --backend emulator --no-progress \
  --format json -o "$work/report.json" -- "$work/cublas_mix" "$repeats" \
  > "$work/stdout" 2> "$work/stderr"
echo "rc=$?" >> "$work/stderr"
python3 - "$work/report.json" "$work/stdout" "$work/stderr" "$repeats" > "$out/cublas_share.txt" <<'PY'
import json, re, sys
report, stdout, stderr, repeats = sys.argv[1:]
r = json.load(open(report))
ran = {}
for f in r["files"]:
    for k in f["kernels"]:
        ran[k["name"]] = ran.get(k["name"], 0) + sum(l["launches"] for l in k["launches"])
not_run = [(n["library"], n["name"], n["launches"], n["call_site"])
           for f in r["files"] for n in f.get("not_run", [])]
total_ran, total_not = sum(ran.values()), sum(n[2] for n in not_run)
err = open(stderr).read()
wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", err)
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
print(f"cublas_mix {repeats} under bankcheck run (emulator)")
print(f"program: {open(stdout).read().strip().splitlines()[-1]}")
print(f"launches that ran: {total_ran}")
for name, n in sorted(ran.items()):
    print(f"  {name}: {n}")
print(f"launches that did not run: {total_not}")
for lib, name, n, site in not_run:
    print(f"  {lib}: {name}: {n} (called from {site})")
print(f"share that did not run: {100.0 * total_not / max(1, total_ran + total_not):.1f}%")
print(f"wall time: {wall.group(1) if wall else '?'}; peak resident set: "
      f"{int(rss.group(1)) // 1024 if rss else '?'} MiB")
PY
cat "$out/cublas_share.txt"
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && command -v ncu > /dev/null; then
  ncu --metrics gpu__time_duration.sum --csv "$work/cublas_mix" "${REPEATS_GPU:-20}" \
    > "$out/gpu_kernels.csv" 2> "$out/gpu_ncu.err"
  python3 - "$out/gpu_kernels.csv" <<'PY'
import csv, collections, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0]
ids = collections.OrderedDict()
for r in rows[1:]:
    d = dict(zip(head, r))
    ids[(d.get("ID"), d.get("Kernel Name"))] = 1
count = collections.Counter(name for _, name in ids)
print("on the GPU (kernels launched, by name):")
for name, n in count.most_common():
    print(f"  {n:6d}  {name[:100]}")
PY
fi
