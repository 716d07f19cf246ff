#!/usr/bin/env bash
# Reports of `bankcheck run` with everything `run` adds (a process killed after its kernels
# ran, a job of several processes, incomplete launches, launches that did not run: cuBLAS's)
# against docs/schema/check.schema.json
# (JSON) and the SARIF 2.1.0 schema.
# Usage: schemas_test.sh BANKCHECK BIN NODE   (run from the repository root)
set -u
bankcheck=$1 bin=$2 node=$3
if [ -z "$node" ] || ! command -v "$node" >/dev/null; then
  echo "schemas_test: node not found: run scripts/install-deps.sh" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  local name=$1
  shift
  for f in json sarif; do
    "$bankcheck" run --no-progress --format $f -o "$out/$name.$f" -- "$@" >/dev/null 2>&1
  done
}
run abort "$bin/endings" abort
run fatal "$bin/endings" fatal
run graph "$bin/endings" graph
run crash "$bin/family" crash 2
run not_run "$bin/cublas_mix" 1
status=0
for f in abort fatal graph crash not_run; do
  [ -s "$out/$f.json" ] && [ -s "$out/$f.sarif" ] || { echo "FAIL: no report of $f"; status=1; }
done
"$node" tests/reports/validate.js docs/schema/check.schema.json "$out"/*.json || status=1
"$node" tests/reports/validate.js tests/reports/schema/sarif-schema-2.1.0.json "$out"/*.sarif ||
  status=1
# The invocation of each process, and its notifications of what is incomplete.
python3 - "$out/crash.sarif" <<'PY' || status=1
import json, sys
inv = json.load(open(sys.argv[1]))["runs"][0]["invocations"]
assert len(inv) == 3, inv
crashed = [i for i in inv if i.get("exitSignalName") == "SIGSEGV"]
assert len(crashed) == 1 and crashed[0]["properties"]["rank"] == "1", inv
assert crashed[0]["toolExecutionNotifications"][0]["level"] == "warning", crashed
PY
# Each kernel that did not run: one notification, with its data.
python3 - "$out/not_run.sarif" "$out/not_run.json" <<'PY' || status=1
import json, sys
notes = [n for i in json.load(open(sys.argv[1]))["runs"][0]["invocations"]
         for n in i.get("toolExecutionNotifications", [])]
listed = [n for f in json.load(open(sys.argv[2]))["files"] for n in f.get("not_run", [])]
said = [n for n in notes if n.get("descriptor", {}).get("id") == "not-run"]
assert listed and len(said) == len(listed), (said, listed)
assert sorted(n["properties"]["mangled"] for n in said) == sorted(n["mangled"] for n in listed)
PY
exit $status
