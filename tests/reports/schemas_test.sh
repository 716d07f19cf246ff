#!/usr/bin/env bash
# Every bundled example's `check --format json` against docs/schema/check.schema.json, and
# its `--format sarif` against the SARIF 2.1.0 schema (tests/reports/schema/); `fix`,
# `explain` and `occupancy` JSON against theirs.
# Usage: schemas_test.sh BANKCHECK NODE OUTDIR   (run from the repository root)
set -euo pipefail
bin=$1 node=$2 out=$3
if [ -z "$node" ] || ! command -v "$node" >/dev/null; then
  echo "schemas_test: node not found: run scripts/install-deps.sh" >&2
  exit 1
fi
here=tests/reports
rm -rf "$out" && mkdir -p "$out"
inputs=(examples/*.cu examples/cmake/tiles.cu tests/data/check/partial_barrier.cu
        tests/data/check/unwritten.cu tests/data/gates/suppressed.cu
        tests/data/gates/global_waste.cu)
# Two at a time (nvcc takes most of the time); three CTAs of each kernel are enough for
# every field to appear.
printf '%s\n' "${inputs[@]}" | xargs -P 2 -I{} sh -c '
  name=$(echo "{}" | tr / _)
  "$0" check "{}" --blocks 3 --format json -o "$1/$name.json" &&
    "$0" check "{}" --blocks 3 --format sarif -o "$1/$name.sarif"
' "$bin" "$out"
# `fix` as JSON (docs/schema/fix.schema.json) and SARIF, on the examples with suggestions and
# the inputs where nothing can be suggested.
fix_inputs=(examples/transpose.cu examples/occupancy.cu examples/scan.cu examples/wide.cu
            examples/structs.cu tests/data/fix_template.cu examples/histogram.cu
            tests/data/fix_widened.cu)
printf '%s\n' "${fix_inputs[@]}" | xargs -P 2 -I{} sh -c '
  name=$(echo "{}" | tr / _)
  "$0" fix "{}" --blocks 3 --format json -o "$1/$name.fix-json" &&
    "$0" fix "{}" --blocks 3 --format sarif -o "$1/$name.fix.sarif"
' "$bin" "$out"
# `explain` (raw addresses with an inactive lane, a declaration split into requests, Kepler's
# 8-byte mode, an atomic) and `occupancy` (launchable, and refused: an `error` instead).
e=0
explain() { "$bin" explain "$@" --format json -o "$out/explain_$e.explain-json"; e=$((e + 1)); }
explain --addrs "$(seq -s, 0 4 120),-" --width 4
explain --decl 'float tile[32][33]' --expr 'tile[threadIdx.x][threadIdx.y]' --block 32,32
explain --decl 'struct { float x, y, z; } s[64]' --expr 's[tid]' --arch sm_35-8byte
explain --type int --expr 'threadIdx.x * 2' --op atom --arch sm_100
"$bin" occupancy --arch sm_90 --threads 128 --regs 32 --smem 16896 --format json \
  >"$out/occupancy_0.occupancy-json"
"$bin" occupancy --arch sm_120 --threads 256 --regs 64 --dynamic-smem 40K --format json \
  >"$out/occupancy_1.occupancy-json"
"$bin" occupancy --threads 2048 --format json >"$out/occupancy_2.occupancy-json" && {
  echo "schemas_test: occupancy of 2048 threads did not exit 2" >&2; exit 1; }
status=0
"$node" $here/validate.js docs/schema/explain.schema.json "$out"/*.explain-json || status=1
"$node" $here/validate.js docs/schema/occupancy.schema.json "$out"/*.occupancy-json || status=1
grep -q '"error"' "$out"/occupancy_2.occupancy-json || { echo "schemas_test: no occupancy error" >&2; status=1; }
# Several files in one run, one of them broken: JSON `files` with an error entry, one SARIF
# run with a tool execution notification; exit 2 (the broken file) after the report.
printf '__global__ void k(float* o) { o[0] = undeclared; }\n' >"$out/broken.cu"
for format in json sarif; do
  rc=0
  "$bin" check examples/transpose.cu "$out/broken.cu" examples/cmake/tiles.cu --blocks 3 \
    --format $format -o "$out/several.$format" 2>/dev/null || rc=$?
  [ $rc = 2 ] || { echo "schemas_test: several files ($format) exited $rc, not 2" >&2; status=1; }
done
"$node" $here/validate.js docs/schema/check.schema.json "$out"/*.json || status=1
"$node" $here/validate.js docs/schema/fix.schema.json "$out"/*.fix-json || status=1
"$node" $here/validate.js $here/schema/sarif-schema-2.1.0.json "$out"/*.sarif || status=1
# The logs are not trivially valid: they hold results, rules and related locations.
grep -q '"ruleId": "bank-conflict"' "$out"/examples_transpose.cu.sarif || { echo "schemas_test: no bank-conflict result" >&2; status=1; }
grep -q '"fixes"' "$out"/examples_occupancy.cu.fix.sarif || { echo "schemas_test: no fix in fix's SARIF" >&2; status=1; }
grep -q '"data_dependent"' "$out"/examples_histogram.cu.fix-json || { echo "schemas_test: no data_dependent array" >&2; status=1; }
grep -q '"sass_width_after"' "$out"/tests_data_fix_widened.cu.fix-json || { echo "schemas_test: no re-split widened load" >&2; status=1; }
grep -q '"stacks"' "$out"/examples_histogram.cu.sarif || { echo "schemas_test: no inline stack" >&2; status=1; }
grep -q '"relatedLocations"' "$out"/examples_transpose.cu.sarif || { echo "schemas_test: no related location" >&2; status=1; }
grep -q '"ruleId": "emulation-note"' "$out"/tests_data_check_partial_barrier.cu.sarif || { echo "schemas_test: no note" >&2; status=1; }
grep -q '"unwritten_shared_reads": \[$' "$out"/tests_data_check_unwritten.cu.json || { echo "schemas_test: no unwritten shared read" >&2; status=1; }
grep -q '"kind": "inSource"' "$out"/tests_data_gates_suppressed.cu.sarif || { echo "schemas_test: no suppression in SARIF" >&2; status=1; }
grep -q '"ruleId": "suppression-comment"' "$out"/tests_data_gates_suppressed.cu.sarif || { echo "schemas_test: no suppression-comment result" >&2; status=1; }
grep -q '"justification": "a lookup table read once"' "$out"/tests_data_gates_suppressed.cu.json || { echo "schemas_test: no justification in JSON" >&2; status=1; }
exit $status
