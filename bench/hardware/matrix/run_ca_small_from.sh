#!/usr/bin/env bash
# The cp.async.ca 4- and 8-byte corpus with each lane's global element chosen
# (gen_ca_small_from.py, patterns_ca_small_from.txt): kernel-level counters as run.sh
# measures them.
#   bash bench/hardware/matrix/run_ca_small_from.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/bankcheck-ca-small-from}
mkdir -p "$out"
PATTERNS=$here/patterns_ca_small_from.txt BUDGET_S=${BUDGET_S:-260} bash "$here/run.sh" "$out"
python3 "$here/summarize.py" "$here/patterns_ca_small_from.txt" "$out/matrix_ncu.csv.gz" \
  "$out/matrix_sass.txt" > "$out/ca_small_from_summary.txt"
