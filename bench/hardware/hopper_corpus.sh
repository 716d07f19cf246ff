#!/usr/bin/env bash
# The Hopper corpus on an sm_90 GPU: wgmma (wgmma/), TMA and bulk copies (tma/),
# distributed shared memory (dsmem/), each instruction measured by Nsight Compute's
# Source Counters, within one time budget.
#
#   bash bench/hardware/hopper_corpus.sh [OUTDIR]      (from the repository root; OUTDIR
#                                                       defaults to $OUT)
#
# BUDGET_S (default 470): seconds for everything. The three probes are built at once
# (nvcc -gencode arch=compute_90a,code=sm_90a -lineinfo), each is run plainly first (a case
# that faults is named, skipped and the run repeated, at most 8 times), then profiled in
# chunks (`--first I --count N`) so that what ran is kept when the budget ends. Every step
# logs to OUTDIR/run.log and goes on after a failure. Writes, per family F in wgmma, tma,
# dsmem: OUTDIR/F/{build.log,plain.txt,sass.txt.gz,F.ptx.gz,F_source_*.csv.gz,ncu_*.log,
# results.tsv} and OUTDIR/{env.txt,run.log,summary.txt}.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/bankcheck-hopper-corpus}}
budget=${BUDGET_S:-470}
start=$(date +%s)
mkdir -p "$out"/{wgmma,tma,dsmem}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
FLAGS=(-gencode arch=compute_90a,code=sm_90a -lineinfo -O3 -diag-suppress 177)
NCU=(ncu --section SourceCounters --page source --csv --print-source cuda,sass
     --cache-control none --clock-control none)

elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "[$(elapsed)s] $*"; }

build() {  # family
  local f=$1
  nvcc "${FLAGS[@]}" -o "$work/probe_$f" "$here/$f/probe_$f.cu" > "$out/$f/build.log" 2>&1
  local rc=$?
  echo "nvcc rc=$rc" >> "$out/$f/build.log"
  nvcc "${FLAGS[@]}" -ptx -o "$work/$f.ptx" "$here/$f/probe_$f.cu" >> "$out/$f/build.log" 2>&1 &&
    gzip -9c "$work/$f.ptx" > "$out/$f/$f.ptx.gz"
  return $rc
}

# Runs the probe plainly; a case that faults (FAILED), or hangs (the last RUN line before
# the timeout), is added to the family's skip list and the run repeated.
plain() {  # family
  local f=$1 skip="" try
  for try in 1 2 3 4 5 6 7 8; do
    (( $(elapsed) > 200 )) && { log "$f: no time for another plain run"; break; }
    local args=()
    [[ -n $skip ]] && args=(--skip "${skip%,}")
    : > "$work/plain_once"
    timeout 60 "$work/probe_$f" "${args[@]}" > "$work/plain_once" 2>&1
    local rc=$?
    cat "$work/plain_once" >> "$out/$f/plain.txt"
    echo "plain run $try rc=$rc skip=${skip%,}" >> "$out/$f/plain.txt"
    local bad=""
    if [[ $rc -eq 1 ]]; then
      bad=$(grep -o '^FAILED [0-9]*' "$work/plain_once" | tail -1 | awk '{print $2}')
    elif [[ $rc -eq 124 ]]; then
      bad=$(grep -o '^RUN [0-9]*' "$work/plain_once" | tail -1 | awk '{print $2}')
    fi
    if [[ -n $bad && ",$skip" != *",$bad,"* ]]; then
      skip+="$bad,"
      continue
    fi
    break
  done
  echo "${skip%,}" > "$work/skip_$f"
  log "$f: plain: $(tail -2 "$out/$f/plain.txt" | tr '\n' ' ')"
}

profile() {  # family total chunk share-of-budget-end
  local f=$1 total=$2 chunk=$3 until=$4 first=0 n=0
  local skip; skip=$(cat "$work/skip_$f" 2>/dev/null)
  while (( first < total )); do
    local left=$(( until - $(elapsed) ))
    if (( left < 20 )); then
      log "$f: budget spent before case $first of $total"
      break
    fi
    local args=(--first "$first" --count "$chunk")
    [[ -n $skip ]] && args+=(--skip "$skip")
    [[ $f == dsmem ]] && args=()  # one launch per kernel, all at once
    [[ $f == dsmem && -n $skip ]] && args=(--skip "$skip")
    timeout "$left" "${NCU[@]}" --log-file "$work/src.csv" "$work/probe_$f" "${args[@]}" \
      > "$out/$f/ncu_$n.log" 2>&1
    local rc=$?
    if [[ -s $work/src.csv ]]; then gzip -9c "$work/src.csv" > "$out/$f/${f}_source_$n.csv.gz"; fi
    rm -f "$work/src.csv"
    log "$f: ncu cases $first..$(( first + chunk - 1 )) rc=$rc $(tail -1 "$out/$f/ncu_$n.log")"
    first=$(( first + chunk ))
    n=$(( n + 1 ))
  done
}

main() {
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ncu --version | tail -1 || true; nvcc --version | tail -1 || true
    python3 --version || true; echo "BUDGET_S=$budget"; } > "$out/env.txt" 2>&1
  cat "$out/env.txt"
  local f
  for f in wgmma tma dsmem; do build "$f" & done
  wait
  for f in wgmma tma dsmem; do
    log "$f: $(tail -1 "$out/$f/build.log")"
    if [[ -x $work/probe_$f ]]; then
      cuobjdump -sass "$work/probe_$f" 2>&1 | gzip -9c > "$out/$f/sass.txt.gz"
    fi
  done
  for f in wgmma tma dsmem; do [[ -x $work/probe_$f ]] && plain "$f"; done
  local nw nt
  nw=$(( $(wc -l < "$here/wgmma/cases.tsv") - 1 ))
  nt=$(( $(wc -l < "$here/tma/cases.tsv") - 1 ))
  # The budget's end for each family: wgmma first (the most cases), then TMA, then DSMEM.
  [[ -x $work/probe_wgmma ]] && profile wgmma "$nw" 50 $(( budget * 55 / 100 ))
  [[ -x $work/probe_tma ]] && profile tma "$nt" 45 $(( budget * 85 / 100 ))
  [[ -x $work/probe_dsmem ]] && profile dsmem 1 1 "$budget"
  : > "$out/summary.txt"
  for f in wgmma tma dsmem; do
    if ls "$out/$f/${f}_source_"*.csv.gz > /dev/null 2>&1; then
      python3 "$here/$f/parse.py" "$out/$f/${f}_source_"*.csv.gz > "$out/$f/results.tsv" \
        2> "$out/$f/parse.log" || log "$f: parse.py failed: $(tail -1 "$out/$f/parse.log")"
      python3 "$here/hopper_summary.py" "$f" "$out/$f/results.tsv" >> "$out/summary.txt" \
        2>&1 || log "$f: summary failed"
    else
      echo "## $f: no Source Counters" >> "$out/summary.txt"
    fi
  done
  cat "$out/summary.txt"
  log "done"
}

main 2>&1 | tee "$work/run.log"
cp "$work/run.log" "$out/run.log"
