#!/usr/bin/env bash
# A user's first hour with three programs of their own (examples/first_hour: a tiled transpose,
# a shared-atomics histogram, a register-blocked SGEMM, each with its own argument parsing and
# check): each runs under `bankcheck run PROGRAM ARGS` as a profiler is called (no `--`), then
# `bankcheck fix --apply -- PROGRAM ARGS` writes its fixes beside the source; the fixed source
# is built and run again under bankcheck: the program's own check still passes, and what the
# fixes aimed at costs less (shared wavefronts, global sectors).
#
# Usage: first_hour_test.sh BANKCHECK NVCC SOURCE_DIR
set -u
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
B=$(abs "$1") NVCC=$2 SRC=$(cd "$3" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-first-hour-XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
flags=(-std=c++17 -O3 -lineinfo -gencode "arch=compute_90,code=[sm_90,compute_90]")
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
# The excess of a JSON report: "SHARED GLOBAL" (wavefronts over their ideal, 32-byte sectors
# over theirs), summed over every kernel.
excess() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
shared = glob = 0
for f in r["files"]:
    for k in f.get("kernels", []):
        shared += k["shared_wavefronts"] - k["shared_ideal_wavefronts"]
        for l in k["lines"]:
            if l["space"] == "global":
                glob += l["sectors"] - l["ideal_sectors"]
print(shared, glob)
PY
}
# story NAME WHAT ARGS...: WHAT is shared, global or both: the excess that must drop.
story() {
  local name=$1 what=$2
  shift 2
  cp "$SRC/examples/first_hour/$name.cu" . || return
  "$NVCC" "${flags[@]}" -o "$name" "$name.cu" || { bad "$name: nvcc"; return; }
  "$B" run --no-progress --format json -o before.json ./"$name" "$@" >run.out 2>run.err
  local rc=$?
  [ $rc = 0 ] || bad "$name: bankcheck run exited $rc: $(cat run.err)"
  grep -q "PASSED" run.out || bad "$name: its own check did not pass under run: $(cat run.out)"
  "$B" fix --no-progress --apply -- ./"$name" "$@" >fix.out 2>fix.err
  rc=$?
  [ $rc = 0 ] || bad "$name: bankcheck fix --apply exited $rc: $(cat fix.err)"
  grep -q "PASSED" fix.out || bad "$name: its own check did not pass under fix"
  grep -q "wrote .*$name.fixed.cu" fix.err || bad "$name: fix --apply did not say it wrote $name.fixed.cu"
  [ -f "$name.fixed.cu" ] || { bad "$name: no $name.fixed.cu"; return; }
  "$NVCC" "${flags[@]}" -o "${name}_fixed" "$name.fixed.cu" || { bad "$name: nvcc of the fixed source"; return; }
  "$B" run --no-progress --format json -o after.json ./"${name}_fixed" "$@" >run2.out 2>run2.err
  rc=$?
  [ $rc = 0 ] || bad "$name: bankcheck run of the fixed program exited $rc: $(cat run2.err)"
  grep -q "PASSED" run2.out || bad "$name: the fixed program's own check fails: $(cat run2.out)"
  read -r s0 g0 <<<"$(excess before.json)"
  read -r s1 g1 <<<"$(excess after.json)"
  echo "$name $*: excess shared wavefronts $s0 -> $s1, global sectors $g0 -> $g1"
  case $what in
    shared | both) [ "$s1" -lt "$s0" ] || bad "$name: shared excess $s0 -> $s1 did not drop" ;;
  esac
  case $what in
    global | both) [ "$g1" -lt "$g0" ] || bad "$name: global excess $g0 -> $g1 did not drop" ;;
  esac
  [ "$s1" -le "$s0" ] && [ "$g1" -le "$g0" ] || bad "$name: a fix made the other count worse"
}

story transpose both -w 96 -h 64 --iters 2
story histogram global --n 65536 --seed 7
story sgemm shared 128 96 64

# The text report as the user reads it, in the directory of the source: the caret on the
# access (`out` of the naive store, `tile` of the tiled read), paths relative to it, the fix
# under each finding with the command that writes it, and the summary line.
"$B" run --no-progress ./transpose -w 64 -h 64 >text.out 2>text.err
grep -q "^transpose.cu:34:32: error: uncoalesced global store" text.err ||
  bad "the naive store's finding is not at transpose.cu:34:32 (the caret on 'out')"
grep -q "^transpose.cu:47:66: error: 32-way bank conflict" text.err ||
  bad "the tiled read's finding is not at transpose.cu:47:66 (the caret on 'tile')"
grep -q "fix: stage the block's tile through shared memory" text.err || bad "no fix: line for the store"
grep -qF '`bankcheck fix --apply ./transpose -w 64 -h 64` writes it' text.err ||
  bad "the report does not name the command that writes the fix"
[ "$(tail -n 1 text.err)" = "2 kernels: 2 errors" ] || bad "the last line is not the summary: $(tail -n 1 text.err)"
"$B" run --no-progress --quiet ./transpose -w 64 -h 64 >quiet.out 2>quiet.err
[ "$(tail -n 1 quiet.err)" = "2 kernels: 2 errors" ] || bad "--quiet: no summary line"
# From elsewhere, the source is not below the working directory: its path stays absolute.
mkdir -p elsewhere && (cd elsewhere && "$B" run --no-progress ../transpose -w 64 -h 64 >/dev/null 2>text2.err)
grep -q "^$W/transpose.cu:34:32: error" elsewhere/text2.err || bad "from a sibling directory, the path is not absolute"
# SARIF: the same column, and the fixes.
"$B" run --no-progress --format sarif -o r.sarif ./transpose -w 64 -h 64 >/dev/null 2>&1
python3 - r.sarif <<'PY' || bad "SARIF: the column or the fixes"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
cols = sorted((x["locations"][0]["physicalLocation"]["region"]["startLine"],
               x["locations"][0]["physicalLocation"]["region"]["startColumn"], "fixes" in x)
              for x in r if x["ruleId"] != "emulation-note")
assert (34, 32, True) in cols and (47, 66, True) in cols, cols
assert all("bankcheck fix" in x["message"]["text"] for x in r if "fixes" in x)
PY
echo "first_hour: $([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
