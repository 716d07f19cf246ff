#!/usr/bin/env bash
# Measure the shared-atomics corpus (atomics/) and then the ldmatrix/stmatrix/cp.async
# corpus (matrix/) on an sm_90 GPU, within one time budget.
#
#   bash bench/hardware/run_new_corpora.sh OUTDIR      (from the repository root)
#
# BUDGET_S (default 360): seconds for everything; the atomics get ATOMICS_BUDGET_S
# (default half of it), the matrix corpus what is left. ncu took 0.093 s per launch on
# the H100 for the first corpus (bench/hardware/measured/patterns/run.log: 3,395 launches in
# 315 s), so about 1,500 + 1,300 launches fit with the compiles and the metric query.
# Writes 8 files to OUTDIR, nothing else: env.txt, query_metrics.txt (the listing's
# shared, LDSM, STSM and LDGSTS lines), atomics_sass.txt, atomics_ncu.csv.gz,
# matrix_sass.txt, matrix_ncu.csv.gz, summary.txt (both summaries), run.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-/tmp/bankcheck-new-corpora}}
mkdir -p "$out"
budget=${BUDGET_S:-360}
atomics_budget=${ATOMICS_BUDGET_S:-$(( budget / 2 ))}
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

main() {
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ncu --version | tail -1 || true; nvcc --version | tail -1 || true
    cuobjdump --version | tail -1 || true; python3 --version || true
    echo "BUDGET_S=$budget ATOMICS_BUDGET_S=$atomics_budget"; } > "$out/env.txt" 2>&1
  cat "$out/env.txt"

  # One metric listing for both corpora; the shared-memory lines are kept.
  ncu --query-metrics > "$work/query.txt" 2>&1 || echo "ncu --query-metrics failed"
  grep -iE 'shared|ldsm|stsm|ldgsts' "$work/query.txt" > "$out/query_metrics.txt" || true
  echo "query: $(wc -l < "$work/query.txt") lines, $(wc -l < "$out/query_metrics.txt") kept"

  BUDGET_S=$atomics_budget QUERY_METRICS="$work/query.txt" \
    bash "$here/atomics/run.sh" "$out" || echo "atomics: run.sh exit $?"
  local left=$(( budget - ($(date +%s) - start) ))
  BUDGET_S=$left QUERY_METRICS="$work/query.txt" \
    bash "$here/matrix/run.sh" "$out" || echo "matrix: run.sh exit $?"

  : > "$out/summary.txt"
  local c
  for c in atomics matrix; do
    if [[ -f $out/${c}_ncu.csv.gz ]]; then
      { echo "## $c"; python3 "$here/$c/summarize.py" "$here/$c/patterns.txt" \
          "$out/${c}_ncu.csv.gz" "$out/${c}_sass.txt"; } >> "$out/summary.txt" ||
        echo "$c: summarize failed"
      tail -1 "$out/summary.txt"
    fi
  done
  echo "done in $(( $(date +%s) - start )) s"
}

main 2>&1 | tee "$work/run.log"
cp "$work/run.log" "$out/run.log"
