#!/usr/bin/env bash
# fix's advice for global lines (tests/data/fix_global.cu, one kernel per pattern): the change
# it names, whether it writes the code, and, where it does, that --apply's copy (checked
# again with the same launch) has the sectors it predicted and no excess left.
#
# Usage: fix_global_test.sh BANKCHECK SOURCE_DIR
set -u
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
B=$(abs "$1") SRC=$(cd "$2" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-fix-global-XXXXXX")
[ -n "${KEEP:-}" ] && echo "$W"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
cp "$SRC/tests/data/fix_global.cu" "$W/" || exit 1
cd "$W" || exit 1
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
# json KERNEL EXPR [FLAGS...]: fix's JSON of KERNEL satisfies the Python EXPR over `g` (the
# kernel's first global advice), `k` (the kernel) and `r` (the report).
json() {
  local kernel=$1 expr=$2
  shift 2
  if ! "$B" fix fix_global.cu --kernel "$kernel" --format json "$@" >"$kernel.json" 2>"$kernel.err"; then
    if ! grep -q "apply" <<<"$*"; then
      bad "$kernel: fix exited non-zero: $(cat "$kernel.err")"
      return
    fi
  fi
  python3 - "$kernel.json" "$expr" <<'PY' || bad "$kernel: $expr"
import json, sys
r = json.load(open(sys.argv[1]))
k = r["kernels"][0]
g = k["globals"][0] if k["globals"] else None
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(k["globals"], indent=1))
sys.exit(0 if ok else 1)
PY
}
json transpose_naive "g['kind'] == 'stage' and g['applicable'] and g['pointer'] == 'out' and g['sectors_after'] == g['ideal_sectors'] and any('__syncthreads();' in e['after'] for e in g['edits'])"
json transpose_rows "g['kind'] == 'stage' and not g['applicable'] and 'the tile needs a 2-D block' in g['note']"
json transpose_return "g['kind'] == 'stage' and not g['applicable'] and 'may return before the store' in g['note']"
json sum_bytes "g['kind'] == 'vector' and g['applicable'] and g['requests_after'] * 4 == g['requests'] and 'uchar4' in g['edits'][0]['after']"
json sum_bytes_guarded "g['kind'] == 'vector' and not g['applicable'] and \"has 'if'\" in g['note']"
json masses "g['kind'] == 'layout' and not g['applicable'] and g['edits'] == []"
json rows_of_100 "g['kind'] == 'pitch' and g['sectors_after'] < g['sectors']"
json row_tails "k['globals'] == []"
json copy_pairs "g['kind'] == 'layout' and 'more than one access' in g['change'] and 'one aligned access' not in g['change']"

# --apply: the copy is checked again with the same launch; the line's excess is gone, as
# predicted, and nothing else got worse.
for kernel in transpose_naive sum_bytes; do
  json "$kernel" "r['applied']['path'].endswith('$kernel.fixed.cu') and all(l['sectors'] == l['ideal_sectors'] for k2 in r['applied']['check']['kernels'] for l in k2['lines'] if l['space'] == 'global') and r['applied']['check']['kernels'][0]['shared_wavefronts'] == r['applied']['check']['kernels'][0]['shared_ideal_wavefronts']" \
    --apply --apply-to "$kernel.fixed.cu"
done
# The text names the change, its prediction and the code.
"$B" fix fix_global.cu --kernel transpose_naive >t.out 2>t.err
grep -q "suggestion: stage the block's tile through shared memory" t.out || bad "text: no stage suggestion"
grep -q "sectors 16384 -> 2048 (ideal 2048)" t.out || bad "text: no prediction: $(cat t.out)"
grep -qF "__shared__ float out_tile[8][32 + 4];" t.out || bad "text: no tile declaration"
echo "fix_global: $([ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
