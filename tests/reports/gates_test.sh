#!/usr/bin/env bash
# The gates of `check` and `diff` through the command line, one case per gate: severity
# (--fail-on 'severity>=LEVEL' and a bare LEVEL), global waste, suppressions in the source,
# a baseline (lines moved, one new conflict), and `bankcheck diff` (text, JSON, --fail-on).
# Usage: gates_test.sh BANKCHECK OUTDIR   (run from the repository root)
set -uo pipefail
bin=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
data=tests/data/gates
fail=0

# expect CODE NAME ARGS...: runs bankcheck, keeps stdout and stderr as $out/NAME.{out,err}.
expect() {
  local code=$1 name=$2
  shift 2
  "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAILED $name: exit $rc, expected $code (bankcheck $*)"
    sed 's/^/  stderr: /' "$out/$name.err" | head -n 5
    fail=$((fail + 1))
  fi
}
# has NAME.EXT TEXT: the file holds TEXT (a fixed string).
has() {
  grep -qF -- "$2" "$out/$1" || { echo "FAILED: $1 lacks: $2"; fail=$((fail + 1)); }
}
lacks() {
  ! grep -qF -- "$2" "$out/$1" || { echo "FAILED: $1 has: $2"; fail=$((fail + 1)); }
}

# --- severity: one kernel with an error, a warning and a note.
sev=$data/severities.cu
expect 0 sev_text check $sev
has sev_text.out "severities.cu:12:19: error: 16-way bank conflict"
has sev_text.out "severities.cu:13:19: warning: 4-way bank conflict"
has sev_text.out "severities.cu:14:19: note: 2-way bank conflict"
expect 1 sev_error check $sev --format json -o "$out/sev.json" --fail-on error
has sev_error.err "--fail-on 'error' crossed: error bank-conflict at $sev:12:19 in severities"
expect 1 sev_warning check $sev --fail-on 'severity >= warning'
has sev_warning.err "(2 findings over the limit)"
expect 1 sev_note check $sev --fail-on 'severity>warning'
has sev_note.err "crossed: error bank-conflict"
expect 2 sev_bad check $sev --fail-on 'severity>=fatal'
has sev_bad.err "'fatal' is not a severity (note, warning or error)"
expect 2 sev_above check $sev --fail-on 'severity>error'
has sev_above.err "no severity is above error"

# --- global waste: 4 of 24 sectors (16.7%).
gw=$data/global_waste.cu
expect 1 gw_crossed check $gw --fail-on 'global-waste>10%'
has gw_crossed.err "--fail-on 'global-waste>10%' crossed: 16.7% of kernel waste's global 32-byte sectors are excess (24 for an ideal of 20)"
expect 0 gw_passes check $gw --fail-on 'global-waste>17%'
expect 0 gw_shared check $gw --fail-on 'excess>0%' --fail-on 'ways>1'
expect 2 gw_bad check $gw --fail-on 'global-waste>101%'
has gw_bad.err "a percentage above 100 can never be crossed"
expect 0 gw_json check $gw --format json -o "$out/gw.json"
has gw.json '"global_waste_percent": 16.6666'

# --- suppressions: the error and the note accepted; the warning still gates.
sup=$data/suppressed.cu
expect 0 sup_text check $sup
has sup_text.out "2 findings suppressed in the source (not counted by --fail-on):"
has sup_text.out "  $sup:10:19: error bank-conflict (16-way) in severities: a lookup table read once"
has sup_text.out "  $sup:13:19: note bank-conflict (2-way) in severities: measured: 2% of the kernel's time"
has sup_text.out "$sup:11:19: warning: 4-way bank conflict"
lacks sup_text.out "$sup:10:19: error:"
has sup_text.out "$sup:14:3: warning: suppression without a reason"
has sup_text.out "$sup:14:3: note: this suppression matches no finding on line 15: remove it"
has sup_text.out "$sup:16:3: warning: unknown rule 'bank-conflicts' in 'ignore[...]'"
expect 0 sup_error check $sup --fail-on error --fail-on 'ways>4'
expect 1 sup_warning check $sup --fail-on warning
has sup_warning.err "crossed: warning bank-conflict at $sup:11:19"
expect 0 sup_json check $sup --format json -o "$out/sup.json"
expect 0 sup_sarif check $sup --format sarif -o "$out/sup.sarif"
has sup.sarif '"kind": "inSource"'
has sup.sarif '"justification": "a lookup table read once"'
has sup.sarif '"ruleId": "suppression-comment"'

# --- baseline: written for a copy of severities.cu; the same file passes; the file with the
# code moved down two lines and one new 8-way conflict fails on the new line only.
k=$out/k.cu
cp $sev "$k"
expect 0 base_write check "$k" --format json -o "$out/base.json"
expect 0 base_same check "$k" --baseline "$out/base.json"
expect 0 base_same_gate check "$k" --baseline "$out/base.json" --fail-on 'ways>1'
sed -e 's|^  const int x = threadIdx.x;|  const int x = threadIdx.x;\n  // moved\n  // down|' \
    -e 's|^  const float c = t\[x \* 2\];|  const float c = t[x * 2];\n  const float e = t[x * 8];|' \
    -e 's|out\[x\] = a + b + c;|out[x] = a + b + c + e;|' $sev >"$k"
expect 1 base_new check "$k" --baseline "$out/base.json"
has base_new.err "--baseline $out/base.json: 1 finding new or worse, the first at $k:17:19: warning bank-conflict in severities (excess 7 wavefronts)"
expect 0 base_gate_passes check "$k" --baseline "$out/base.json" --fail-on 'ways>8'
expect 1 base_gate_crossed check "$k" --baseline "$out/base.json" --fail-on 'ways>4'
has base_gate_crossed.err "8-way bank conflict at $k:17:19 in severities, new or worse than $out/base.json"
# Without the baseline the old 16-way line crosses the same gate.
expect 1 base_none check "$k" --fail-on 'ways>8'
# A finding made worse: the 4-way line becomes 32-way.
sed -e 's|t\[x \* 4\]|t[x * 32]|' "$k" >"$out/k2.cu" && cp "$out/k2.cu" "$k"
expect 1 base_worse check "$k" --baseline "$out/base.json" --fail-on 'ways>16'
has base_worse.err "32-way bank conflict at $k:15:19 in severities, new or worse than"
expect 0 base_worse_json check "$k" --format json -o "$out/after.json"
expect 2 base_bad check $sev --baseline $sev
has base_bad.err "--baseline: $sev: not JSON"

# --- diff: the baseline against the changed file.
expect 0 diff_text diff "$out/base.json" "$out/after.json"
has diff_text.out "$k:15:19: worse: bank-conflict in severities: excess 3 wavefronts, 4-way (warning) -> excess 31 wavefronts, 32-way (error) (was line 13)"
has diff_text.out "$k:17:19: new: bank-conflict in severities: excess 7 wavefronts, 8-way"
has diff_text.out "$out/base.json -> $out/after.json: 1 new, 1 worse, 0 better, 0 fixed, 2 unchanged"
expect 0 diff_json diff "$out/base.json" "$out/after.json" --format json -o "$out/diff.json"
has diff.json '"change": "new"'
has diff.json '"change": "worse"'
expect 1 diff_fail diff "$out/base.json" "$out/after.json" --fail-on new
has diff_fail.err "--fail-on 'new' crossed: 2 findings new or worse, the first at $k:15:19"
expect 0 diff_gate diff "$out/base.json" "$out/after.json" --fail-on 'ways>32'
expect 1 diff_gate_crossed diff "$out/base.json" "$out/after.json" --fail-on 'ways>16'
expect 0 diff_back diff "$out/after.json" "$out/base.json" --fail-on new
has diff_back.out "$k:17:19: fixed: bank-conflict in severities"
has diff_back.out "better: bank-conflict in severities: excess 31 wavefronts, 32-way (error) -> excess 3 wavefronts, 4-way"
expect 2 diff_bad diff "$out/base.json" $sev
expect 2 diff_missing diff "$out/base.json" "$out/none.json"
has diff_missing.err "cannot read the report"

echo "gates: $fail failed"
exit $((fail > 0))
