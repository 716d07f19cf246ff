#!/usr/bin/env bash
# Emulation throughput with analysis, `bankcheck run` against `check`, on the same kernels:
# examples/transpose.cu (its own main(): 8192x8192 floats, four transposes) built with the
# shared runtime and run under `run --backend emulator --launches all`, against
# `check examples/transpose.cu --blocks all` (the same launches). The program's own host work
# is timed alone with BANKCHECK_EXECUTOR=none (kernels not run), and check's front end with a
# kernel name that matches nothing; both are subtracted.
#   bash bench/run/throughput.sh BUILD [REPS]     BUILD: a build tree (default build)
# Prints each rep's times and the warp instructions of both reports.
set -uo pipefail
build=$(readlink -f "${1:-build}")
reps=${2:-2}
b=$build/tools/bankcheck/bankcheck
lib=$build/lib/bankcheck-cuda
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -cudart shared -lineinfo -O3 -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
  -o "$work/transpose" examples/transpose.cu || exit 1
t() { local s; s=$(date +%s.%N); "$@" > /dev/null 2>&1; awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN { printf "%.2f", a - b }'; }
echo "rep host_only_s run_s check_front_s check_s"
for i in $(seq 1 "$reps"); do
  h=$(t env BANKCHECK_EXECUTOR=none LD_PRELOAD="$lib/libcuda.so.1" LD_LIBRARY_PATH="$lib" "$work/transpose")
  r=$(t "$b" run --backend emulator --launches all --no-progress --format json -o "$work/r.json" -- "$work/transpose")
  f=$(t "$b" check examples/transpose.cu --kernel no_such_kernel --no-progress)
  c=$(t sh -c "'$b' check examples/transpose.cu --blocks all --no-progress --format json > '$work/c.json'")
  echo "$i $h $r $f $c"
done
python3 - "$work/r.json" "$work/c.json" <<'PY'
import json, sys
def warp_instructions(path):
    r = json.load(open(path)); n = {}
    for part in r.get("files", [r]):
        for k in (part.get("report") or part)["kernels"]:
            n[k["name"]] = n.get(k["name"], 0) + k["warp_instructions"]
    return n
print("run  ", warp_instructions(sys.argv[1]))
print("check", warp_instructions(sys.argv[2]))
PY
