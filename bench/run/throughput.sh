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
#    analyses, and without the micro-ops the fast tier added: uop.cpp fast_tier_only) against
#    the fast tier (the default), on the launch-heavy programs of examples/launch_heavy and
#    examples/run's scan:
#    a. execution: every launch runs on both tiers (--repeats execute), the same launches:
#       each program validating every variant at one block size (arguments `0 256 0`), scan
#       over 30 iterations. The program's host work alone (the record executor, which runs no
#       kernel and counts the launches) is subtracted: the ratio of kernel time, today / fast.
#       Each time is the least of REPS runs (a run takes a second or two; the machine may be
#       shared).
#    b. as the programs run by default (every variant and block size validated, then timed
#       over 1000 launches each): `time bankcheck run` of the fast tier, with its provably
#       invisible skipping of repeats, against the tier before with every launch executed,
#       whose time is measured without the timing loop and with a loop of REPEATS_TODAY
#       launches, and extrapolated to 1000 (each timed launch repeats a validated one: the
#       same cost).
#    Each prints its ratios and their geometric mean against the target of 5x.
#    The fast tier runs its runs of ALU instructions as native code (src/emu/native.hpp) once
#    compiled: part 2a first runs each program once with BANKCHECK_NATIVE_AFTER=0 in a cache
#    of its own (its time, compiling included, is `first_s`), then times the fast tier with
#    that cache (`fast_s`) and without native code (`--native off`: `interp_s`, `ratio_i`).
#
#    With BASELINE set, 2a also runs every launch on the bankcheck of the day the fast tier was
#    asked for (commit d6613ad), not the reconstruction above: its `run` needed programs built
#    with -cudart shared (examples/launch_heavy's bin-shared/, and scan built so here), and ran
#    every launch it did not analyse, on all cores, without micro-ops over the reference's
#    per-lane functions (its default, --repeats execute: no launch skipped; --kernel naming no
#    kernel: none analysed). The host work of those builds is measured apart and subtracted,
#    as above. BASELINE: the path of that commit's bankcheck in its build tree (with
#    lib/bankcheck-cudart/libcudart.so.13 beside it), or a commit, which the script builds
#    (bankcheck and bankcheck_cudart, Release, ccache when there is one) from `git archive`
#    in a temporary directory, or in BASELINE_BUILD (kept for the next run: the build takes
#    20 to 40 minutes on 2 cores).
#
#   bash bench/run/throughput.sh [BUILD] [REPS]    BUILD: a build tree (default build) with
#        bankcheck, its libcuda, examples/launch_heavy's bin/ (static runtime) and bin-shared/
#        (shared runtime, for BASELINE) and examples/run's scan
#   BASELINE=d6613ad BASELINE_BUILD=/tmp/bankcheck-d6613ad PARTS=2a bash bench/run/throughput.sh
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
# The least of REPS runs' seconds (part 2a: runs of a second or two on a shared machine).
best() {
  local rep_ least="" secs_
  for rep_ in $(seq 1 "$reps"); do
    secs_=$("$@")
    least=$(awk -v x="$secs_" -v b="$least" 'BEGIN { printf "%.2f", (b == "" || x < b) ? x : b }')
  done
  echo "$least"
}

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
  s=$(best t env BANKCHECK_EXECUTOR=record BANKCHECK_RECORD="$rec" LD_PRELOAD="$lib/libcuda.so.1" \
        LD_LIBRARY_PATH="$lib" "$@")
  echo "$s $(grep -c '^launch ' "$rec" 2>/dev/null || echo 0)"
}
# tier TIER REPEATS PROGRAM ARGS...: seconds of `bankcheck run` analysing nothing.
export BANKCHECK_CACHE_DIR=$work/cache
tier() {
  local tr=$1 rp=$2 nat=on; shift 2
  [[ $tr == interp ]] && tr=fast nat=off
  t "$b" run --no-progress --kernel no_such_kernel --repeats "$rp" --tier "$tr" --native "$nat" \
    -o "$work/x.txt" -- "$@"
}
# The fast tier's first run of a program, compiling its native code.
first() { BANKCHECK_NATIVE_AFTER=0 tier fast execute "$@"; }
summary() {
  awk -v what="$1" '{ s += log($1); n++ } END { if (n) printf "%s: geometric mean %.2fx over %d runs (target 5x: %s)\n\n", what, exp(s / n), n, (exp(s / n) >= 5 ? "met" : "not met") }' "$work/ratios"
  rm -f "$work/ratios"
}

# The baseline's bankcheck (BASELINE), built when it names a commit; empty without one.
baseline_bankcheck() {
  [[ -n ${BASELINE:-} ]] || return 0
  if [[ -f $BASELINE ]]; then
    readlink -f "$BASELINE"
    return 0
  fi
  local dir=${BASELINE_BUILD:-$work/baseline} launcher=()
  if [[ ! -x $dir/build/tools/bankcheck/bankcheck || ! -f $dir/build/lib/bankcheck-cudart/libcudart.so.13 ]]; then
    command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    mkdir -p "$dir/src"
    echo "building the baseline $BASELINE in $dir (bankcheck, bankcheck_cudart)" >&2
    { git archive "$BASELINE" | tar -x -C "$dir/src" &&
      cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF \
        -DBANKCHECK_BUILD_BENCH=OFF "${launcher[@]}" > "$dir/build.log" 2>&1 &&
      cmake --build "$dir/build" -j "$(nproc)" --target bankcheck bankcheck_cudart >> "$dir/build.log" 2>&1; } ||
      { echo "the baseline $BASELINE did not build: $dir/build.log" >&2; return 1; }
  fi
  echo "$dir/build/tools/bankcheck/bankcheck"
}

if [[ " $parts " == *" 2a "* ]]; then
  old=$(baseline_bankcheck) || exit 1
  echo "== 2a. launches not analysed, every launch executed: the tier before (today) and the fast tier"
  if [[ -n $old ]]; then
    echo "   and the baseline $BASELINE ($old, programs built with -cudart shared, their own host work)"
    nvcc -cudart shared -lineinfo -O3 -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
      -o "$work/scan" examples/run/scan/scan.cu || exit 1
    printf "%-26s %8s %8s %9s %9s %9s %9s %8s %8s %8s %11s %8s\n" run launches host_s today_s \
      first_s interp_s fast_s ratio_i ratio host_sh_s baseline_s ratio_b
  else
    printf "%-26s %8s %8s %9s %9s %9s %9s %8s %8s\n" run launches host_s today_s first_s \
      interp_s fast_s ratio_i ratio
  fi
  # NAME HOST_S LAUNCHES TODAY_S FIRST_S INTERP_S FAST_S [HOST_SHARED_S BASELINE_S]
  a_row() {
    awk -v n="$1" -v h="$2" -v l="$3" -v td="$4" -v fs="$5" -v fi="$6" -v f="$7" -v hs="${8:-}" \
        -v bl="${9:-}" -v out="$work/ratios" -v outi="$work/ratios_i" -v outb="$work/ratios_b" 'BEGIN {
      kt = td - h; kf = f - h; if (kf < 0.01) kf = 0.01; r = kt / kf
      ki = fi - h; if (ki < 0.01) ki = 0.01; ri = kt / ki
      printf "%-26s %8s %8.2f %9.2f %9.2f %9.2f %9.2f %7.2fx %7.2fx", n, l, h, td, fs, fi, f, ri, r
      printf "%.6f\n", r >> out; printf "%.6f\n", ri >> outi
      if (bl != "") {
        rb = (bl - hs) / kf
        printf " %8.2f %11.2f %7.2fx", hs, bl, rb; printf "%.6f\n", rb >> outb
      }
      printf "\n" }'
  }
  # The baseline, every launch executed, none analysed: seconds.
  baseline() { best t "$old" run --kernel no_such_kernel --repeats execute -o "$work/b.txt" -- "$@"; }
  # today, first (compiling), interp and fast of one program.
  tiers() {
    echo "$(best tier today execute "$@") $(first "$@") $(best tier interp execute "$@")" \
      "$(best tier fast execute "$@")"
  }
  for p in $programs; do
    read -r h l < <(host "$lh/$p" 0 256 0)
    extra=()
    if [[ -n $old ]]; then
      read -r hs _ < <(host "$lh/../bin-shared/$p" 0 256 0)
      extra=("$hs" "$(baseline "$lh/../bin-shared/$p" 0 256 0)")
    fi
    read -r td fs fi f < <(tiers "$lh/$p" 0 256 0)
    a_row "$p 0 256 0" "$h" "$l" "$td" "$fs" "$fi" "$f" "${extra[@]}"
  done
  # scan stops at its first wrong result, which the record executor gives it: 3 launches an
  # iteration, and host work too small to count.
  extra=()
  [[ -n $old ]] && extra=(0 "$(baseline "$work/scan" 1048576 30)")
  read -r td fs fi f < <(tiers "$scan" 1048576 30)
  a_row "scan 1048576 30" 0 90 "$td" "$fs" "$fi" "$f" "${extra[@]}"
  mv "$work/ratios" "$work/ratios_f"
  mv "$work/ratios_i" "$work/ratios"
  summary "execution without native code (--native off), against --tier today"
  mv "$work/ratios_f" "$work/ratios"
  summary "execution, against --tier today"
  if [[ -n $old ]]; then
    mv "$work/ratios_b" "$work/ratios"
    summary "execution, against the baseline $BASELINE"
  fi
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
