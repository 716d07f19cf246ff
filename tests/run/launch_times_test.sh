#!/usr/bin/env bash
# BANKCHECK_LAUNCH_TIMES: a line per launch, `KERNEL analysed|executed|skipped SECONDS`, in
# the order the program launched them, the skipped ones as the report counts them.
# Usage: launch_times_test.sh BANKCHECK REPEATS_PROGRAM
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BANKCHECK_LAUNCH_TIMES="$work/times" "$1" run --no-progress -o "$work/report.txt" -- "$2" \
  > "$work/out" 2> "$work/err" || { echo "bankcheck run failed"; cat "$work/err"; exit 1; }
python3 - "$work/times" <<'PY'
import collections, sys
rows = [line.split() for line in open(sys.argv[1])]
bad = [r for r in rows if len(r) != 3 or r[1] not in ("analysed", "executed", "skipped")
       or float(r[2]) < 0]
how = collections.Counter((r[0], r[1]) for r in rows if len(r) == 3)
launches = collections.Counter(r[0] for r in rows)
want = {"_Z5twicePfPKf": 11, "_Z8plus_onePfPKf": 4, "_Z10accumulatePfPKf": 3, "_Z5countPj": 3,
        "_Z7clockedPfPKf": 3}
skipped = {"_Z5twicePfPKf": 6, "_Z8plus_onePfPKf": 2}
ok = not bad and dict(launches) == want and all(
    how[(k, "skipped")] == skipped.get(k, 0) for k in want) and all(
    how[(k, "analysed")] >= 1 for k in want) and rows[0][1] == "analysed"
if not ok:
    print("launch times differ:", *(" ".join(r) for r in rows), sep="\n")
sys.exit(0 if ok else 1)
PY
