#!/usr/bin/env bash
# `bankcheck run --backend gpu` whatever the program does, and its launch selection, on a GPU
# machine: the same programs and checks CTest runs through the emulator (tests/run), here
# through the GPU tool, and each report compared line by line with the emulator's.
#
#   1. endings (every way of ending, streams, a device reset, a graph, a cooperative launch) and
#      family (a job of three processes; a worker that crashes): exit code, completeness, and
#      per line (file, line, space, op) the counts of both backends on the kernels both report
#   2. tests/run/lifecycle_test.sh's cases with --backend gpu (a killed program, SIGTERM
#      forwarded, bankcheck killed, ranks, a crashed rank)
#   3. the selection options (--kernel regex:, --launch-skip, --launch-count, --filter-mode
#      global) on tests/run/conflicts: the analysed launches of both backends
#
# Run from the repository root on a machine with an sm_90 GPU, the CUDA toolkit and ninja:
#   bash bench/lifecycle/gpu.sh [OUTDIR]
# It builds bankcheck with the GPU backend in OUTDIR/build (about 2 minutes on 16 cores), then
# writes OUTDIR/summary.txt (one line per check: PASS or FAIL, and what differed), every
# report under OUTDIR/reports, and the logs. BUILD=DIR uses a build tree made before;
# SECOND=emulator runs the same flow with the
# emulator in the GPU's place (to try the script on a machine without a GPU).
set -uo pipefail
second=${SECOND:-gpu}
out=$(readlink -f "${1:-${OUT:-/tmp/bankcheck-lifecycle-gpu}}")
root=$(pwd)
mkdir -p "$out/reports" "$out/bin"
summary=$out/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
export PATH=/usr/local/cuda/bin:$PATH

build=${BUILD:-$out/build}  # BUILD: an existing build tree, not built again
if [ -n "${BUILD:-}" ]; then
  :
elif echo "building bankcheck (GPU backend) in $out/build" >&2 && ! { cmake -S "$root" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF \
         >"$out/cmake.log" 2>&1 &&
       cmake --build "$out/build" --target bankcheck bankcheck_cuda bankcheck_run_agent \
         $([ "$second" = gpu ] && echo bankcheck_gpu) >"$out/build.log" 2>&1; }; then
  say "FAIL build: see $out/build.log"
  tail -30 "$out/build.log"
  exit 1
fi
bankcheck=$build/tools/bankcheck/bankcheck
bin=$out/bin
sm90=(-gencode arch=compute_90,code=[sm_90,compute_90])
for p in endings family conflicts; do
  nvcc -std=c++17 "${sm90[@]}" -lineinfo -o "$bin/$p" "$root/tests/run/$p.cu" \
    >>"$out/build.log" 2>&1 || say "FAIL nvcc $p"
done

# Per line of the kernels both reports have: (file, line, space, op) -> the counts.
compare() {  # NAME EMULATOR.json GPU.json
  python3 - "$@" <<'PY'
import json, sys
name, a, b = sys.argv[1:]
def lines(path):
    r = json.load(open(path))
    out = {}
    for f in r["files"]:
        for k in f.get("kernels", []):
            for l in k["lines"]:
                key = (k["name"], l["file"].split("/")[-1], l["line"], l["space"], l["op"])
                c = (l["wavefronts"], l["ideal_wavefronts"]) if l["space"] == "shared" else \
                    (l.get("sectors", 0), l.get("ideal_sectors", 0))
                out[key] = tuple(x + y for x, y in zip(out.get(key, (0, 0)), c))
    return r, out
ra, la = lines(a)
rb, lb = lines(b)
common = sorted(set(la) & set(lb))
diff = [k for k in common if la[k] != lb[k]]
only = sorted(set(la) ^ set(lb))
state = "PASS" if common and not diff else "FAIL"
print(f"{state} agree {name}: {len(common) - len(diff)} of {len(common)} lines equal"
      f"{'; differ: ' + str([(k, la[k], lb[k]) for k in diff][:4]) if diff else ''}"
      f"{'; in one report only: ' + str(only[:4]) if only else ''}"
      f"; complete: emulator {ra.get('complete')}, the other {rb.get('complete')}")
PY
}

# 1. Both backends on every ending and job; the exit code the program's.
cases=("endings exit:0" "endings abort:134" "endings segv:139" "endings terminate:134"
       "endings _exit:3" "endings fatal:4" "endings thread:5" "endings streams:0"
       "endings nosync:0" "endings reset:0" "endings graph:0" "endings coop:0"
       "family ranks 2:0" "family crash 2:6")
for c in "${cases[@]}"; do
  args=${c%:*} want=${c##*:}
  name=$(echo "$args" | tr ' ' _)
  for backend in emulator $second; do
    # shellcheck disable=SC2086
    timeout 120 "$bankcheck" run --no-progress --backend $backend --launches all --format json \
      -o "$out/reports/$name.$backend.json" -- "$bin"/$args \
      >"$out/reports/$name.$backend.out" 2>"$out/reports/$name.$backend.err"
    got=$?
    if [ "$got" = "$want" ]; then
      say "PASS exit $name $backend: $got"
    else
      say "FAIL exit $name $backend: $got, expected $want (see $out/reports/$name.$backend.err)"
    fi
  done
  if [ -s "$out/reports/$name.emulator.json" ] && [ -s "$out/reports/$name.$second.json" ]; then
    compare "$name" "$out/reports/$name.emulator.json" "$out/reports/$name.$second.json" |
      tee -a "$summary"
  else
    say "FAIL agree $name: a report is missing"
  fi
done

# 2. Signals, killed processes, jobs, through the GPU tool.
for t in killed_program sigterm_forwarded sigint_sighup_forwarded bankcheck_killed ranks \
         crashed_rank; do
  if BANKCHECK_RUN_OPTIONS="--backend $second" timeout 180 bash "$root/tests/run/lifecycle_test.sh" \
       "$bankcheck" "$bin" "$t" >"$out/lifecycle_$t.log" 2>&1; then
    say "PASS lifecycle $t"
  else
    say "FAIL lifecycle $t: $(grep -m2 FAIL "$out/lifecycle_$t.log" | tr '\n' ' ')"
  fi
done

if timeout 60 python3 "$root/tests/run/terminal_test.py" "$bankcheck" "$bin" \
     >"$out/lifecycle_terminal.log" 2>&1; then
  say "PASS lifecycle terminal_ctrl_c (the default backend)"
else
  say "FAIL lifecycle terminal_ctrl_c: $(grep -m2 FAIL "$out/lifecycle_terminal.log" | tr '\n' ' ')"
fi

# 3. The same selection on both backends: the same analysed launches.
selections=("--kernel regex:^tile_" "--kernel tile_transpose --launch-skip 1 --launch-count 2"
            "--filter-mode global --launch-skip 3" "--filter-mode global --launch-count 2"
            "--launches all")
i=0
for s in "${selections[@]}"; do
  for backend in emulator $second; do
    # shellcheck disable=SC2086
    "$bankcheck" run --no-progress --backend $backend $s --format json \
      -o "$out/reports/select$i.$backend.json" -- "$bin/conflicts" 4 >/dev/null 2>&1
  done
  python3 - "$s" "$out/reports/select$i.emulator.json" "$out/reports/select$i.$second.json" \
    <<'PY' | tee -a "$summary"
import json, sys
s, a, b = sys.argv[1:]
def ids(p):
    try:
        r = json.load(open(p))
    except Exception as e:
        return f"no report ({e})"
    return [(k["name"], [i for l in k["launches"] for i in l["analysed_ids"]])
            for f in r["files"] for k in f["kernels"]]
x, y = ids(a), ids(b)
print(f"{'PASS' if x == y and isinstance(x, list) else 'FAIL'} select '{s}': emulator {x}, the other {y}")
PY
  i=$((i + 1))
done

echo
echo "== summary ($out/summary.txt)"
grep -c '^PASS' "$summary" | sed 's/^/PASS: /'
grep '^FAIL' "$summary" || echo "no FAIL"
