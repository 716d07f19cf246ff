#!/usr/bin/env bash
# Emulation throughput of `bankcheck run`, two measurements in one run.
#
# 1. With analysis, `bankcheck run` against `check` on the same kernels: examples/transpose.cu
#    (its own main(): 8192x8192 floats, four transposes) built with the shared runtime and run
#    under `run --backend emulator --launches all`, against `check examples/transpose.cu
#    --blocks all` (the same launches). The program's own host work is timed alone with
#    BANKCHECK_EXECUTOR=none (kernels not run), and check's front end with a kernel name that
#    matches nothing; both are subtracted. Prints each rep's times and the warp instructions
#    of both reports.
#
# 2. Launches not analysed (`--kernel` naming no kernel: every launch only executes), the tier
#    before (`--tier today`: launches not analysed run as analysed ones execute, without the
#    analyses, and without the per-lane micro-ops) against the fast tier (the default), on the
#    launch-heavy programs of examples/launch_heavy and examples/run's scan:
#    a. execution: every launch runs on both tiers (--repeats execute), the same launches:
#       each program validating every variant at one block size (arguments `0 256 0`), scan
#       over 30 iterations. The program's host work alone (the record executor, which runs no
#       kernel and counts the launches) is subtracted: the ratio of kernel time, today / fast.
#    b. as the programs run by default (every variant and block size validated, then timed
#       over 1000 launches each): `time bankcheck run` of the fast tier, with its provably
#       invisible skipping of repeats, against the tier before with every launch executed,
#       whose time is measured without the timing loop and with a loop of REPEATS_TODAY
#       launches, and extrapolated to 1000 (each timed launch repeats a validated one: the
#       same cost).
#    Each prints its ratios and their geometric mean against the target of 5x.
#
#   bash bench/run/throughput.sh [BUILD] [REPS]    BUILD: a build tree (default build) with
#        bankcheck, its libcuda, examples/launch_heavy's bin/ (static runtime) and examples/run's scan
# PARTS (default "1 2a 2b"), PROGRAMS (default: the launch-heavy programs but matmul_forward,
# whose validation alone runs for minutes), REPEATS_TODAY (default 3) choose what runs.
set -uo pipefail
build=$(readlink -f "${1:-build}")
reps=${2:-2}
parts=${PARTS:-1 2a 2b}
b=$build/tools/bankcheck/bankcheck
lib=$build/lib/bankcheck-cuda
lh=$build/examples/launch_heavy/bin
scan=$build/examples/run/bin/scan
programs=${PROGRAMS:-encoder_forward layernorm_forward gelu_residual_forward attention_forward crossentropy_forward}
repeats_today=${REPEATS_TODAY:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t() { local s; s=$(date +%s.%N); "$@" > /dev/null 2>&1; awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN { printf "%.2f", a - b }'; }

if [[ " $parts " == *" 1 "* ]]; then
  echo "== 1. with analysis: run against check (examples/transpose.cu)"
  nvcc -cudart shared -lineinfo -O3 -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
    -o "$work/transpose" examples/transpose.cu || exit 1
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
fi

# host PROGRAM ARGS...: the program's host work alone (seconds), and its launches.
host() {
  local rec=$work/record.txt s
  rm -f "$rec"
  s=$(t env BANKCHECK_EXECUTOR=record BANKCHECK_RECORD="$rec" LD_PRELOAD="$lib/libcuda.so.1" \
        LD_LIBRARY_PATH="$lib" "$@")
  echo "$s $(grep -c '^launch ' "$rec" 2>/dev/null || echo 0)"
}
# tier TIER REPEATS PROGRAM ARGS...: seconds of `bankcheck run` analysing nothing.
tier() {
  local tr=$1 rp=$2; shift 2
  t "$b" run --no-progress --kernel no_such_kernel --repeats "$rp" --tier "$tr" -o "$work/x.txt" -- "$@"
}
summary() {
  awk -v what="$1" '{ s += log($1); n++ } END { if (n) printf "%s: geometric mean %.2fx over %d runs (target 5x: %s)\n\n", what, exp(s / n), n, (exp(s / n) >= 5 ? "met" : "not met") }' "$work/ratios"
  rm -f "$work/ratios"
}

if [[ " $parts " == *" 2a "* ]]; then
  echo "== 2a. launches not analysed, every launch executed: the tier before (today) and the fast tier"
  printf "%-26s %8s %8s %9s %9s %8s\n" run launches host_s today_s fast_s ratio
  a_row() {  # NAME HOST_S LAUNCHES TODAY_S FAST_S
    awk -v n="$1" -v h="$2" -v l="$3" -v td="$4" -v f="$5" -v out="$work/ratios" 'BEGIN {
      kt = td - h; kf = f - h; if (kf < 0.01) kf = 0.01; r = kt / kf
      printf "%-26s %8s %8.2f %9.2f %9.2f %7.2fx\n", n, l, h, td, f, r; printf "%.6f\n", r >> out }'
  }
  for p in $programs; do
    read -r h l < <(host "$lh/$p" 0 256 0)
    a_row "$p 0 256 0" "$h" "$l" "$(tier today execute "$lh/$p" 0 256 0)" \
      "$(tier fast execute "$lh/$p" 0 256 0)"
  done
  # scan stops at its first wrong result, which the record executor gives it: 3 launches an
  # iteration, and host work too small to count.
  a_row "scan 1048576 30" 0 90 "$(tier today execute "$scan" 1048576 30)" \
    "$(tier fast execute "$scan" 1048576 30)"
  summary "execution"
fi

if [[ " $parts " == *" 2b "* ]]; then
  echo "== 2b. as the programs run by default: the tier before with every launch executed"
  echo "   (extrapolated from loops of 0 and $repeats_today launches) and the fast tier"
  printf "%-24s %9s %10s %10s %12s %9s %8s\n" run launches today_0_s today_r_s today_est_s fast_s ratio
  for p in $programs; do
    read -r h l < <(host "$lh/$p" 0 0 0)
    t0=$(tier today execute "$lh/$p" 0 0 0)
    tr=$(tier today execute "$lh/$p" 0 0 "$repeats_today")
    f=$(tier fast skip "$lh/$p")
    awk -v n="$p" -v l="$l" -v t0="$t0" -v tr="$tr" -v r="$repeats_today" -v f="$f" \
        -v out="$work/ratios" 'BEGIN {
      est = t0 + (tr - t0) * 1000 / r; x = est / f
      printf "%-24s %9d %10.2f %10.2f %12.1f %9.2f %7.1fx\n", n, l * 1001, t0, tr, est, f, x
      printf "%.6f\n", x >> out }'
  done
  summary "as the programs run"
fi
