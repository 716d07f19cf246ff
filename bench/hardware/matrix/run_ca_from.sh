#!/usr/bin/env bash
# The cp.async.ca (16-byte) corpus with each lane's global chunk chosen
# (gen_cg_from.py --kernel cp_ca16_from, patterns_ca_from.txt): kernel-level counters as
# run.sh measures them.
#   bash bench/hardware/matrix/run_ca_from.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-ca-from}
mkdir -p "$out"
PATTERNS=$here/patterns_ca_from.txt BUDGET_S=${BUDGET_S:-260} bash "$here/run.sh" "$out"
python3 "$here/summarize.py" "$here/patterns_ca_from.txt" "$out/matrix_ncu.csv.gz" \
  "$out/matrix_sass.txt" > "$out/ca_from_summary.txt"
