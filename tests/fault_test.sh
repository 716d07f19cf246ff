#!/usr/bin/env bash
# Faults the GPU survives: a stencil's first row reads the row above it, 512 bytes before its
# buffer, and its last thread writes one float past the end. `check` reports each as
# compute-sanitizer does (access, size, thread, block, address, source line), goes on (the
# reads give zeros, the write is dropped) and counts every CTA; --stop-on-fault stops at the
# first with exit 2. A read 64 MB from every buffer still ends the run (tests/run: run_fault).
#
# Usage: fault_test.sh BANKCHECK PYTHON DATA_DIR
set -u
bankcheck=$1 python=$2 data=$3
bad=0
fail() { echo "FAIL: $*"; bad=1; }
out=$("$bankcheck" check "$data/faults/halo.cu" --blocks all --format json 2>err.txt)
rc=$?
[ $rc -eq 0 ] || fail "check exited $rc: $(cat err.txt)"
echo "$out" | "$python" -c '
import json, sys
r = json.load(sys.stdin)
k = r["files"][0]["kernels"][0]
f = sorted(k["faults"], key=lambda x: x["line"])
assert len(f) == 2, f
read, write = f
assert (read["access"], read["size"], read["line"], read["block"], read["thread"]) == \
    ("read", 4, 12, [0, 0, 0], [0, 0, 0]), read
assert read["lanes"] == 4 * 32, read          # the first row of each of the 4 CTAs of row 0
assert (write["access"], write["line"], write["lanes"], write["block"], write["thread"]) == \
    ("write", 18, 1, [3, 7, 0], [31, 3, 0]), write
assert k["ctas_analysed"] == 32, k["ctas_analysed"]
notes = [n["message"] for n in k["notes"]]
assert any(m.startswith("Invalid __global__ read of size 4 bytes by thread (0,0,0) in block (0,0,0)")
           for m in notes), notes
assert any("write of size 4 bytes by thread (31,3,0) in block (3,7,0)" in m for m in notes), notes
lines = {(l["line"], l["space"]): l for l in k["lines"]}
assert lines[(12, "global")]["requests"] == 32, lines[(12, "global")]  # one per warp of row 0
' || fail "the report of the survived faults"
text=$("$bankcheck" check "$data/faults/halo.cu" 2>&1)
echo "$text" | grep -q "halo.cu:12:.*Invalid __global__ read of size 4 bytes" ||
  fail "the text report names the read at its line: $text"
"$bankcheck" check "$data/faults/halo.cu" --stop-on-fault > /dev/null 2> stop.txt
rc=$?
[ $rc -eq 2 ] || fail "--stop-on-fault exited $rc"
grep -q "outside every buffer" stop.txt || fail "--stop-on-fault's message: $(cat stop.txt)"
grep -q "halo.cu:12" stop.txt || fail "--stop-on-fault's location: $(cat stop.txt)"
[ $bad -eq 0 ] && echo "fault_test: all cases passed"
exit $bad
