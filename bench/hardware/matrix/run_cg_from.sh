#!/usr/bin/env bash
# The cp.async.cg corpus with each lane's global chunk chosen (gen_cg_from.py,
# patterns_cg_from.txt, kernel cp_cg16_from): kernel-level counters as run.sh measures
# them (the LDGSTS wavefronts, bypass included, are smsp__sass_..._op_ldgsts.sum).
#   bash bench/hardware/matrix/run_cg_from.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-cg-from}
mkdir -p "$out"
PATTERNS=$here/patterns_cg_from.txt BUDGET_S=${BUDGET_S:-240} bash "$here/run.sh" "$out"
python3 "$here/summarize.py" "$here/patterns_cg_from.txt" "$out/matrix_ncu.csv.gz" \
  "$out/matrix_sass.txt" > "$out/cg_from_summary.txt"
