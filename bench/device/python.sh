#!/usr/bin/env bash
# `bankcheck run --backend gpu -- python3 torch_triton.py` (a PyTorch extension kernel built at
# run time and Triton kernels) against Nsight Compute's source counters of the same program,
# per line, and both timed beside the plain run. Run from the repository root on the GPU
# machine (PyTorch and Triton installed):
#   bash bench/device/python.sh CARRY [OUTDIR]
# CARRY as for gpu_run.sh. Writes OUTDIR/py.txt (the text report), py.json, py.source.csv,
# py.program_lines.tsv, py_compare.md, py_speed.txt and cubins/ (Triton's, for their SASS).
set -uo pipefail
carry=$(readlink -f "$1")
out=$(readlink -f "${2:-${OUT:-/tmp/bankcheck-gpu-python}}")
root=$(pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export BANKCHECK_GPU_DIR="$carry/lib/bankcheck-gpu"
export EXT_DIR=/tmp/bankcheck-ext TRITON_CACHE_DIR=/tmp/bankcheck-triton PYTHONUNBUFFERED=1
mkdir -p "$EXT_DIR"
bankcheck=$carry/bin/bankcheck
prog=$root/bench/device/python/torch_triton.py
kernels=(--kernel transpose_naive --kernel transpose_padded --kernel matmul_kernel --kernel matmul_tma_kernel
         --kernel scale_kernel)
now() { date +%s.%N; }
t0=$(now); python3 "$prog"; echo "first run (builds the extension, compiles Triton): rc=$? $(awk -v a="$(now)" -v b="$t0" 'BEGIN{printf "%.1f s", a-b}')"
t0=$(now); python3 "$prog" > /dev/null; t1=$(now)
"$bankcheck" run --backend gpu --no-progress --launches all "${kernels[@]}" --format json \
  -o "$out/py.json" -- python3 "$prog" > /dev/null 2> "$out/py.json.err"
echo "bankcheck json: rc=$?"; t2=$(now)
timeout 300 ncu --kernel-name regex:'transpose_|matmul_kernel|matmul_tma_kernel|scale_kernel' --section SourceCounters \
  --page source --csv --print-source cuda,sass --cache-control none --clock-control none \
  --log-file "$out/py.source.csv" python3 "$prog" > "$out/py.ncu.txt" 2>&1
echo "ncu: rc=$?"; t3=$(now)
"$bankcheck" run --backend gpu --no-progress --launches all "${kernels[@]}" --color never \
  -- python3 "$prog" > /dev/null 2> "$out/py.txt"
echo "bankcheck text: rc=$?"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
  printf "| plain (s) | bankcheck run --backend gpu (s) | ncu SourceCounters (s) | ncu / bankcheck | slowdown vs plain |\n|---:|---:|---:|---:|---:|\n| %.2f | %.2f | %.2f | %.1fx | %.2fx |\n", b-a, c-b, d-c, (d-c)/(c-b), (c-b)/(b-a) }' > "$out/py_speed.txt"
cat "$out/py_speed.txt"
mkdir -p "$out/cubins"
find "$TRITON_CACHE_DIR" -name "*.cubin" -exec cp {} "$out/cubins/" \;
python3 bench/run/launch_lines.py "$out/py.source.csv" > "$out/py.lines.log" 2>&1
echo "launch_lines: rc=$?"; tail -3 "$out/py.lines.log"
python3 bench/device/compare_report.py "$out/py.json" "$out/py.program_lines.tsv" \
  --markdown "$out/py_compare.md" | tail -30
