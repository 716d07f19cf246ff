#!/usr/bin/env bash
# The bundled Hopper kernels (examples/hopper) on an sm_90 GPU: Nsight Compute's Source
# Counters of each program's launches (the truth the CPU replays), and `bankcheck run --backend
# gpu` on the same program, compared line by line.
#
#   bash bench/hardware/hopper_truth.sh [OUTDIR]      (from the repository root; OUTDIR
#                                                      defaults to $OUT)
#
# Builds bankcheck with its GPU backend (build-gpu/, Ninja; BANKCHECK=PATH uses that one), the
# two CUDA programs
# (-gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo), then per program P
# (gemm_tma_wgmma, attention_fwd, and triton_dot: Python, Triton's tl.dot): the plain run
# (P.plain.txt: PASSED or FAILED), `ncu --section SourceCounters --page source --csv
# --print-source cuda,sass` (P.source.csv.gz; bench/run/launch_lines.py's P.program_lines.tsv
# and P.launch_lines.tsv), the SASS (P.sass.txt.gz; Triton's cubins in cubins/), `bankcheck run
# --backend gpu --launches all` (P.json, P.txt) and bench/device/compare_report.py's table
# (P_compare.md). Then the Hopper corpus's probes (bench/hardware/{wgmma,tma,dsmem}) under the
# GPU backend, compared with their measured Source Counters (probe_F.json, probe_F_compare.md;
# the DSMEM probe measured again: probe_dsmem.source.csv.gz, dsmem_results.tsv). Each step logs
# to OUTDIR/run.log and the next runs after a failure; a short table ends the run.
set -uo pipefail
root=$(pwd)
out=$(readlink -f "${1:-${OUT:-/tmp/bankcheck-hopper-truth}}")
mkdir -p "$out"
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TRITON_CACHE_DIR=$work/triton PYTHONUNBUFFERED=1
NCU=(ncu --section SourceCounters --page source --csv --print-source cuda,sass
     --cache-control none --clock-control none)
log() { echo "[$(( $(date +%s) - start ))s] $*"; }

# truth NAME COMMAND...: the kernels named in KERNELS (a regex; empty: all) are profiled and
# analysed.
truth() {
  local p=$1; shift
  local nf=() bf=() k
  if [[ -n ${KERNELS:-} ]]; then
    nf=(--kernel-name "regex:$KERNELS")
    for k in ${KERNELS//|/ }; do bf+=(--kernel "$k"); done
  fi
  timeout 60 "$@" > "$out/$p.plain.txt" 2>&1
  local rc=$?
  log "$p: plain rc=$rc $(tail -1 "$out/$p.plain.txt")"
  if [[ $rc -eq 124 ]]; then
    log "$p: the plain run hung; not profiled"
    return
  fi
  timeout 150 "${NCU[@]}" "${nf[@]}" --log-file "$out/$p.source.csv" "$@" > "$out/$p.ncu.txt" 2>&1
  log "$p: ncu rc=$? $(wc -l < "$out/$p.source.csv" 2>/dev/null) lines"
  python3 "$root/bench/run/launch_lines.py" "$out/$p.source.csv" > "$out/$p.lines.log" 2>&1
  log "$p: launch_lines rc=$? $(tail -1 "$out/$p.lines.log")"
  if [[ -x $bankcheck ]]; then
    timeout 120 "$bankcheck" run --backend gpu --no-progress --launches all "${bf[@]}" \
      --format json -o "$out/$p.json" -- "$@" > /dev/null 2> "$out/$p.json.err"
    log "$p: bankcheck json rc=$? $(tail -1 "$out/$p.json.err")"
    timeout 120 "$bankcheck" run --backend gpu --no-progress --launches all "${bf[@]}" \
      --color never -- "$@" > /dev/null 2> "$out/$p.txt"
    log "$p: bankcheck text rc=$?"
    python3 "$root/bench/device/compare_report.py" "$out/$p.json" "$out/$p.program_lines.tsv" \
      --markdown "$out/${p}_compare.md" > "$out/$p.compare.log" 2>&1
    log "$p: $(tail -1 "$out/$p.compare.log")"
  fi
  gzip -9f "$out/$p.source.csv" 2>/dev/null
}

main() {
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ncu --version | tail -1 || true; nvcc --version | tail -1 || true
    python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' || true
    git -C "$root" log --oneline -1 || true; } > "$out/env.txt" 2>&1
  cat "$out/env.txt"
  local p
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
      cuobjdump -sass "$work/$p" 2>&1 | gzip -9c > "$out/$p.sass.txt.gz"
      truth "$p" "$work/$p"
    else
      log "$p: build failed: $(tail -3 "$out/$p.build.txt")"
    fi
  done
  KERNELS='matmul_kernel|matmul_tma_kernel|attention_kernel' \
    truth triton_dot python3 "$root/examples/hopper/triton_dot.py"
  mkdir -p "$out/cubins"
  find "$TRITON_CACHE_DIR" -name "*.cubin" -exec cp {} "$out/cubins/" \; 2>/dev/null
  # The Hopper corpus's probes under the GPU backend, compared with their Nsight Compute
  # measurement (bench/hardware/*/measured; the DSMEM probe measured again, its vector loads
  # fixed since).
  for f in wgmma tma dsmem; do
    [[ -x $work/probe_$f ]] || { log "probe_$f: build failed"; continue; }
    if [[ $f == dsmem ]]; then
      timeout 120 "${NCU[@]}" --log-file "$out/probe_dsmem.source.csv" "$work/probe_dsmem" \
        > "$out/probe_dsmem.ncu.txt" 2>&1
      log "probe_dsmem: ncu rc=$?"
      python3 bench/hardware/dsmem/parse.py "$out/probe_dsmem.source.csv" \
        > "$out/dsmem_results.tsv" 2> "$out/dsmem_parse.log"
      cp "$out/probe_dsmem.source.csv" "$work/probe_dsmem.source.csv"
      gzip -9f "$out/probe_dsmem.source.csv"
    else
      zcat "bench/hardware/$f/measured/${f}_source_"*.csv.gz > "$work/probe_$f.source.csv"
    fi
    python3 bench/run/launch_lines.py "$work/probe_$f.source.csv" > "$out/probe_$f.lines.log" 2>&1
    cp "$work/probe_$f.program_lines.tsv" "$out/" 2>/dev/null
    if [[ -x $bankcheck ]]; then
      local skip=()
      [[ $f == tma ]] && skip=(--skip 6)  # load_1d_f32_b64_c3: an illegal instruction
      timeout 120 "$bankcheck" run --backend gpu --no-progress --launches all --format json \
        -o "$out/probe_$f.json" -- "$work/probe_$f" "${skip[@]}" > /dev/null \
        2> "$out/probe_$f.json.err"
      log "probe_$f: bankcheck rc=$? $(tail -1 "$out/probe_$f.json.err")"
      python3 bench/device/compare_report.py "$out/probe_$f.json" \
        "$work/probe_$f.program_lines.tsv" --markdown "$out/probe_${f}_compare.md" \
        > "$out/probe_$f.compare.log" 2>&1
      log "probe_$f: $(tail -1 "$out/probe_$f.compare.log")"
    fi
  done
  echo "== summary"
  for p in gemm_tma_wgmma attention_fwd triton_dot; do
    printf '%-16s plain: %-8s %s\n' "$p" "$(tail -1 "$out/$p.plain.txt" 2>/dev/null)" \
      "$(tail -1 "$out/$p.compare.log" 2>/dev/null)"
  done
  for f in wgmma tma dsmem; do
    printf '%-16s %s\n' "probe_$f" "$(tail -1 "$out/probe_$f.compare.log" 2>/dev/null)"
  done
  for p in gemm_tma_wgmma attention_fwd triton_dot; do
    [[ -f $out/${p}_compare.md ]] && { echo "## $p"; grep -v '^$' "$out/${p}_compare.md" | head -40; }
  done
  log "done"
}

main 2>&1 | tee "$work/run.log"
cp "$work/run.log" "$out/run.log"
