#!/usr/bin/env bash
# The same JSON from `check` and `fix` on any number of threads, run after run, on a
# data-dependent kernel (the histogram's shared atomics, on bankcheck's own random bytes):
#   - the bundled launch, --threads 1, 2 and 8, three times each;
#   - a grid the default sample cuts short (which CTAs it counts once depended on the
#     threads: each took CTAs until the budget was seen crossed);
#   - fix over more distinct shared requests than its recorder keeps (which it kept once
#     depended on the threads that saw them first).
# Usage: determinism_test.sh BANKCHECK PYTHON OUTDIR   (from the repository root)
set -euo pipefail
bin=$1 python=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
status=0

# same NAME ARGS...: runs ARGS with --threads 1, 2, 8 (REPEAT times each) and compares.
same() {
  local name=$1 repeat=$2
  shift 2
  local ref=""
  for t in 1 2 8; do
    for ((i = 1; i <= repeat; ++i)); do
      local f="$out/$name.t$t.$i.json"
      "$bin" "$@" --format json --threads "$t" >"$f"
      if [ -z "$ref" ]; then
        ref=$f
      elif ! cmp -s "$ref" "$f"; then
        echo "determinism_test: $name: --threads $t (run $i) differs from $(basename "$ref"):" >&2
        diff "$ref" "$f" | head -20 >&2
        status=1
      fi
    done
  done
  echo "$out/$name.t1.1.json"
}

hist=examples/histogram.cu
big=(--grid 1024 --arg n=16M --arg data=random:16M)
same check 3 check "$hist" >/dev/null
same fix 3 fix "$hist" >/dev/null
sampled=$(same check_sampled 1 check "$hist" "${big[@]}")
same fix_sampled 1 fix "$hist" "${big[@]}" >/dev/null
limited=$(same fix_limit 1 fix "$hist" "${big[@]}" --kernel histogram_shared --blocks 600)

# The cases are what they say: a sample shorter than the grid; requests beyond the recorder.
"$python" - "$sampled" "$limited" <<'EOF' || status=1
import json, sys
sampled = json.load(open(sys.argv[1]))
assert any(k["ctas_analysed"] < k["ctas"] for k in sampled["files"][0]["kernels"]), "no kernel was sampled"
limited = json.load(open(sys.argv[2]))
assert limited["kernels"][0]["dropped_requests"] > 0, "the recorder's limit was not reached"
EOF
[ $status = 0 ] && echo "determinism_test: check and fix JSON byte-identical over --threads 1, 2, 8 and repeated runs"
exit $status
