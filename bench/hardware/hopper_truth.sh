#!/usr/bin/env bash
# The bundled Hopper kernels (examples/hopper) and the Hopper corpus's probes on an sm_90 GPU:
# Nsight Compute's Source Counters of each program's launches (the truth the CPU replays), and
# `bankcheck run --backend gpu` on the same program, compared line by line.
#
#   bash bench/hardware/hopper_truth.sh [OUTDIR]      (from the repository root; OUTDIR
#                                                      defaults to $OUT)
#
# Programs P: gemm_tma_wgmma, attention_fwd (built with -gencode
# arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo), triton_dot (Python, Triton's tl.dot),
# and the probes probe_wgmma, probe_tma, probe_dsmem (bench/hardware/*/probe_*.cu).
#
# Taking the truth (the default): per program the plain run (P.plain.txt: PASSED or FAILED),
# `ncu --section SourceCounters --page source --csv --print-source cuda,sass`
# (P.source.csv.gz; bench/run/launch_lines.py's P.program_lines.tsv and P.launch_lines.tsv),
# the SASS (P.sass.txt.gz; Triton's cubins in cubins/). The wgmma and TMA probes' truth is
# their measurement (bench/hardware/*/measured); the DSMEM probe is measured again
# (dsmem_results.tsv).
#
# Comparing: with a bankcheck that has the GPU backend, `bankcheck run --backend gpu
# --launches all` (P.json, P.txt) and bench/device/compare_report.py's table (P_compare.md).
#   BANKCHECK=PATH   that bankcheck; else bankcheck is built into build-gpu/ (Ninja), or
#                    BANKCHECK=/nonexistent to take the truth alone
#   TRUTH=DIR        compare only, against the truth recorded in DIR (its P.program_lines.tsv,
#                    e.g. bench/hardware/hopper_truth_results): no ncu, no plain runs, JSON only
# Each step logs to OUTDIR/run.log and the next runs after a failure; a short table ends the
# run.
set -uo pipefail
root=$(pwd)
out=$(readlink -f "${1:-${OUT:-/tmp/bankcheck-hopper-truth}}")
mkdir -p "$out"
truth_dir=${TRUTH:+$(readlink -f "$TRUTH")}
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TRITON_CACHE_DIR=$work/triton PYTHONUNBUFFERED=1
NCU=(ncu --section SourceCounters --page source --csv --print-source cuda,sass
     --cache-control none --clock-control none)
log() { echo "[$(( $(date +%s) - start ))s] $*"; }

# measure NAME COMMAND...: the plain run and the Source Counters of the kernels named in KERNELS
# (a regex; empty: all); writes OUTDIR/NAME.program_lines.tsv.
measure() {
  local p=$1; shift
  local nf=()
  [[ -n ${KERNELS:-} ]] && nf=(--kernel-name "regex:$KERNELS")
  timeout 60 "$@" > "$out/$p.plain.txt" 2>&1
  local rc=$?
  log "$p: plain rc=$rc $(tail -1 "$out/$p.plain.txt")"
  if [[ $rc -eq 124 ]]; then
    log "$p: the plain run hung; not profiled"
    return 1
  fi
  timeout 150 "${NCU[@]}" "${nf[@]}" --log-file "$out/$p.source.csv" "$@" > "$out/$p.ncu.txt" 2>&1
  log "$p: ncu rc=$? $(wc -l < "$out/$p.source.csv" 2>/dev/null) lines"
  python3 "$root/bench/run/launch_lines.py" "$out/$p.source.csv" > "$out/$p.lines.log" 2>&1
  log "$p: launch_lines rc=$? $(tail -1 "$out/$p.lines.log")"
  gzip -9f "$out/$p.source.csv" 2>/dev/null
  return 0
}

# compare NAME TRUTH_LINES COMMAND...: bankcheck's GPU backend on the same kernels, per line.
compare() {
  local p=$1 lines=$2; shift 2
  local bf=() k
  if [[ -n ${KERNELS:-} ]]; then
    for k in ${KERNELS//|/ }; do bf+=(--kernel "$k"); done
  fi
  [[ -x $bankcheck ]] || return 0
  timeout 120 "$bankcheck" run --backend gpu --no-progress --launches all "${bf[@]}" \
    --format json -o "$out/$p.json" -- "$@" > /dev/null 2> "$out/$p.json.err"
  log "$p: bankcheck json rc=$? $(tail -1 "$out/$p.json.err")"
  if [[ -z $truth_dir ]]; then
    timeout 120 "$bankcheck" run --backend gpu --no-progress --launches all "${bf[@]}" \
      --color never -- "$@" > /dev/null 2> "$out/$p.txt"
    log "$p: bankcheck text rc=$?"
  fi
  python3 "$root/bench/device/compare_report.py" "$out/$p.json" "$lines" \
    --markdown "$out/${p}_compare.md" > "$out/$p.compare.log" 2>&1
  log "$p: $(tail -1 "$out/$p.compare.log")"
}

# run NAME COMMAND...: the truth (or the recorded one), then the comparison.
run() {
  local p=$1; shift
  local lines=$out/$p.program_lines.tsv
  if [[ -n $truth_dir ]]; then
    lines=$truth_dir/$p.program_lines.tsv
    [[ -f $lines ]] || { log "$p: no recorded truth in $truth_dir"; return; }
  else
    measure "$p" "$@" || return
  fi
  compare "$p" "$lines" "$@"
}

main() {
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ncu --version | tail -1 || true; nvcc --version | tail -1 || true
    python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' || true
    git -C "$root" log --oneline -1 || true
    echo "TRUTH=${truth_dir:-(taken now)} BANKCHECK=${BANKCHECK:-(built)}"; } > "$out/env.txt" 2>&1
  cat "$out/env.txt"
  local p f
  for p in gemm_tma_wgmma attention_fwd; do
    nvcc -gencode 'arch=compute_90a,code=[sm_90a,compute_90a]' -lineinfo -O3 -o "$work/$p" \
      "examples/hopper/$p.cu" > "$out/$p.build.txt" 2>&1 &
  done
  for f in wgmma tma dsmem; do
    nvcc -gencode arch=compute_90a,code=sm_90a -lineinfo -O3 -diag-suppress 177 \
      -o "$work/probe_$f" "bench/hardware/$f/probe_$f.cu" > "$out/probe_$f.build.txt" 2>&1 &
  done
  bankcheck=${BANKCHECK:-$root/build-gpu/tools/bankcheck/bankcheck}
  if [[ -z ${BANKCHECK:-} ]]; then
    { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu; } \
      > "$out/bankcheck_build.log" 2>&1
    log "bankcheck build rc=$? $(tail -1 "$out/bankcheck_build.log")"
  fi
  wait
  [[ -x $bankcheck ]] || log "no bankcheck: the comparisons are skipped"
  for p in gemm_tma_wgmma attention_fwd; do
    if [[ -x $work/$p ]]; then
      [[ -n $truth_dir ]] || cuobjdump -sass "$work/$p" 2>&1 | gzip -9c > "$out/$p.sass.txt.gz"
      run "$p" "$work/$p"
    else
      log "$p: build failed: $(tail -3 "$out/$p.build.txt")"
    fi
  done
  KERNELS='matmul_kernel|matmul_tma_kernel|attention_kernel' \
    run triton_dot python3 "$root/examples/hopper/triton_dot.py"
  if [[ -z $truth_dir ]]; then
    mkdir -p "$out/cubins"
    find "$TRITON_CACHE_DIR" -name "*.cubin" -exec cp {} "$out/cubins/" \; 2>/dev/null
  fi
  # The probes: the wgmma and TMA ones' truth is their measurement; the DSMEM one is measured.
  for f in wgmma tma dsmem; do
    [[ -x $work/probe_$f ]] || { log "probe_$f: build failed"; continue; }
    local lines=$out/probe_$f.program_lines.tsv
    if [[ -n $truth_dir ]]; then
      lines=$truth_dir/probe_$f.program_lines.tsv
    elif [[ $f == dsmem ]]; then
      measure probe_dsmem "$work/probe_dsmem"
      python3 bench/hardware/dsmem/parse.py "$out/probe_dsmem.source.csv.gz" \
        > "$out/dsmem_results.tsv" 2> "$out/dsmem_parse.log"
    else
      zcat "bench/hardware/$f/measured/${f}_source_"*.csv.gz > "$work/probe_$f.source.csv"
      python3 bench/run/launch_lines.py "$work/probe_$f.source.csv" > "$out/probe_$f.lines.log" 2>&1
      cp "$work/probe_$f.program_lines.tsv" "$lines"
    fi
    local skip=()
    [[ $f == tma ]] && skip=(--skip 6)  # load_1d_f32_b64_c3: an illegal instruction
    compare "probe_$f" "$lines" "$work/probe_$f" "${skip[@]}"
  done
  echo "== summary"
  for p in gemm_tma_wgmma attention_fwd triton_dot probe_wgmma probe_tma probe_dsmem; do
    printf '%-16s plain: %-8s %s\n' "$p" "$(tail -1 "$out/$p.plain.txt" 2>/dev/null)" \
      "$(tail -1 "$out/$p.compare.log" 2>/dev/null)"
  done
  for p in gemm_tma_wgmma attention_fwd triton_dot; do
    [[ -f $out/${p}_compare.md ]] && { echo "## $p"; grep -v '^$' "$out/${p}_compare.md" | head -40; }
  done
  for p in probe_wgmma probe_tma probe_dsmem; do
    [[ -f $out/${p}_compare.md ]] && { echo "## $p (differences)"; grep -v '| yes |' "$out/${p}_compare.md" | grep -v '^$' | head -12; }
  done
  log "done"
}

main 2>&1 | tee "$work/run.log"
cp "$work/run.log" "$out/run.log"
