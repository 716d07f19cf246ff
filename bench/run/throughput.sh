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
#       shared). ratio_k compares the launches' own execution times, summed (today_k, fast_k:
#       BANKCHECK_LAUNCH_TIMES, docs/runtime.md), which need no host work subtracted.
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
# The least of REPS runs' seconds (part 2a: runs of a second or two on a shared machine),
# column by column where the command prints several.
best() {
  local rep_ least="" secs_
  for rep_ in $(seq 1 "$reps"); do
    secs_=$("$@")
    least=$(awk -v x="$secs_" -v b="$least" 'BEGIN {
      n = split(x, xs, " "); split(b, bs, " ")
      for (i = 1; i <= n; i++) printf "%s%.3f", (i > 1 ? " " : ""), (b == "" || xs[i] < bs[i]) ? xs[i] : bs[i] }')
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
# tier TIER REPEATS PROGRAM ARGS...: seconds of `bankcheck run` analysing nothing, and the
# seconds its launches took to execute, summed (BANKCHECK_LAUNCH_TIMES: each launch's wall
# time alone, without the program's host work, loading modules or the report).
export BANKCHECK_CACHE_DIR=$work/cache
tier() {
  local tr=$1 rp=$2 nat=on secs_; shift 2
  [[ $tr == interp ]] && tr=fast nat=off
  rm -f "$work/launch_times"
  secs_=$(BANKCHECK_LAUNCH_TIMES="$work/launch_times" t "$b" run --no-progress \
    --kernel no_such_kernel --repeats "$rp" --tier "$tr" --native "$nat" -o "$work/x.txt" -- "$@")
  echo "$secs_ $(awk '{ s += $3 } END { printf "%.3f", s }' "$work/launch_times" 2>/dev/null)"
}
# The fast tier's first run of a program, compiling its native code.
first() { BANKCHECK_NATIVE_AFTER=0 tier fast execute "$@" | cut -d' ' -f1; }
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
    printf "%-26s %8s %8s %9s %9s %9s %9s %8s %8s %9s %9s %8s %8s %11s %8s\n" run launches \
      host_s today_s first_s interp_s fast_s ratio_i ratio today_k fast_k ratio_k host_sh_s \
      baseline_s ratio_b
  else
    printf "%-26s %8s %8s %9s %9s %9s %9s %8s %8s %9s %9s %8s\n" run launches host_s today_s \
      first_s interp_s fast_s ratio_i ratio today_k fast_k ratio_k
  fi
  # NAME HOST_S LAUNCHES TODAY_S FIRST_S INTERP_S FAST_S TODAY_K INTERP_K FAST_K
  #   [HOST_SHARED_S BASELINE_S]: ratio and ratio_i from the whole runs less the host work,
  #   ratio_k from the launches' own execution times (*_k)
  a_row() {
    awk -v n="$1" -v h="$2" -v l="$3" -v td="$4" -v fs="$5" -v fi="$6" -v f="$7" -v tk="$8" \
        -v ik="$9" -v fk="${10}" -v hs="${11:-}" -v bl="${12:-}" -v out="$work/ratios" \
        -v outi="$work/ratios_i" -v outk="$work/ratios_k" -v outb="$work/ratios_b" 'BEGIN {
      kt = td - h; kf = f - h; if (kf < 0.01) kf = 0.01; r = kt / kf
      ki = fi - h; if (ki < 0.01) ki = 0.01; ri = kt / ki
      rk = tk / (fk < 0.001 ? 0.001 : fk)
      printf "%-26s %8s %8.2f %9.2f %9.2f %9.2f %9.2f %7.2fx %7.2fx %9.3f %9.3f %7.2fx", n, l, h,
        td, fs, fi, f, ri, r, tk, fk, rk
      printf "%.6f\n", r >> out; printf "%.6f\n", ri >> outi; printf "%.6f\n", rk >> outk
      if (bl != "") {
        rb = (bl - hs) / kf
        printf " %8.2f %11.2f %7.2fx", hs, bl, rb; printf "%.6f\n", rb >> outb
      }
      printf "\n" }'
  }
  # The baseline, every launch executed, none analysed: seconds.
  baseline() { best t "$old" run --kernel no_such_kernel --repeats execute -o "$work/b.txt" -- "$@"; }
  # today (whole, launches), first (compiling), interp (whole, launches) and fast (whole,
  # launches) of one program.
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
    read -r td tk fs fi ik f fk < <(tiers "$lh/$p" 0 256 0)
    a_row "$p 0 256 0" "$h" "$l" "$td" "$fs" "$fi" "$f" "$tk" "$ik" "$fk" "${extra[@]}"
  done
  # scan stops at its first wrong result, which the record executor gives it: its host work
  # (30 iterations of a million random inputs and their check) is not measured and not
  # subtracted, so its ratio and ratio_i understate the kernels' (ratio_k does not need it).
  extra=()
  [[ -n $old ]] && extra=(0 "$(baseline "$work/scan" 1048576 30)")
  read -r td tk fs fi ik f fk < <(tiers "$scan" 1048576 30)
  a_row "scan 1048576 30" 0 90 "$td" "$fs" "$fi" "$f" "$tk" "$ik" "$fk" "${extra[@]}"
  mv "$work/ratios" "$work/ratios_f"
  mv "$work/ratios_i" "$work/ratios"
  summary "execution without native code (--native off), against --tier today"
  mv "$work/ratios_f" "$work/ratios"
  summary "execution, against --tier today"
  mv "$work/ratios_k" "$work/ratios"
  summary "execution, the launches' own times (BANKCHECK_LAUNCH_TIMES), against --tier today"
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
    read -r t0 _ < <(tier today execute "$lh/$p" 0 0 0)
    read -r tr _ < <(tier today execute "$lh/$p" 0 0 "$repeats_today")
    read -r f _ < <(tier fast skip "$lh/$p")
    awk -v n="$p" -v l="$l" -v t0="$t0" -v tr="$tr" -v r="$repeats_today" -v f="$f" \
        -v out="$work/ratios" 'BEGIN {
      est = t0 + (tr - t0) * 1000 / r; x = est / f
      printf "%-24s %9d %10.2f %10.2f %12.1f %9.2f %7.1fx\n", n, l * 1001, t0, tr, est, f, x
      printf "%.6f\n", x >> out }'
  done
  summary "as the programs run"
fi
