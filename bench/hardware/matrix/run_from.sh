#!/usr/bin/env bash
# A cp.async corpus whose lanes choose their global source: patterns_NAME.txt measured as
# run.sh measures it (kernel-level counters; the LDGSTS wavefronts, bypass included, are
# smsp__sass_..._op_ldgsts.sum), then summarized to OUTDIR/NAME_summary.txt.
#   bash bench/hardware/matrix/run_from.sh NAME [OUTDIR]
# NAME: cg_from (gen_cg_from.py, kernel cp_cg16_from), ca_from (gen_cg_from.py --kernel
# cp_ca16_from), ca_small_from (gen_ca_small_from.py, kernels cp_ca4_from, cp_ca8_from).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run_from.sh cg_from|ca_from|ca_small_from [OUTDIR]}
patterns=$here/patterns_$name.txt
[ -f "$patterns" ] || { echo "run_from.sh: no $patterns" >&2; exit 2; }
out=${2:-/tmp/bankcheck-$name}
mkdir -p "$out"
PATTERNS=$patterns BUDGET_S=${BUDGET_S:-260} bash "$here/run.sh" "$out"
python3 "$here/summarize.py" "$patterns" "$out/matrix_ncu.csv.gz" "$out/matrix_sass.txt" \
  > "$out/${name}_summary.txt"
