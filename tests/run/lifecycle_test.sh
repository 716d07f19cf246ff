#!/usr/bin/env bash
# `bankcheck run` driven from outside, as a terminal, a CI runner or a job scheduler would:
# a program killed while it runs, a signal sent to bankcheck, bankcheck itself killed, jobs of
# several processes. Uses the test programs endings and family (tests/run).
#
# Usage: lifecycle_test.sh BANKCHECK BIN CASE
#   killed_program     the program is killed (SIGKILL): bankcheck exits 137, the report of
#                      what ran is written and says the program was killed
#   sigterm_forwarded  bankcheck gets SIGTERM: the program gets it and dies of it; bankcheck
#                      exits 143 with the report
#   sigint_sighup_forwarded  the same with SIGINT (130) and SIGHUP (129)
#   sigterm_in_first_launch  bankcheck gets SIGTERM while the program's first launch runs:
#                      the report is written all the same, naming the launch it was in
#   bankcheck_killed   bankcheck is killed (SIGKILL) while a program, its child and grandchild
#                      run: none of them is left
#   ranks              a launcher and two workers (RANK=1, 2): one report, a section each
#   crashed_rank       a worker dies of SIGSEGV: its section says so, the others are complete
# BANKCHECK_RUN_OPTIONS (words) are added to every `bankcheck run` (--backend gpu on a GPU).
set -u
extra=(${BANKCHECK_RUN_OPTIONS:-})
bankcheck=$1 bin=$2 case=$3
work=$(mktemp -d)
bg=""
cleanup() {
  [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }
show() {
  echo "--- standard output"; cat "$work/out" 2>/dev/null
  echo "--- standard error"; cat "$work/err" 2>/dev/null
}
# Waits (at most 20 s) until FILE has a line matching PATTERN.
wait_for() {
  for _ in $(seq 200); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no '$2' in $1 after 20 s"
  return 1
}
# The Python expression EXPR is true of the JSON report (r; kernels: every file's kernels).
json() {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); kernels=[k for f in r['files'] for k in f.get('kernels', [])]; sys.exit(0 if ($1) else 1)" \
    "$work/r.json" || fail "the report fails: $1"
}
mkdir "$work/tmp"
start() {
  TMPDIR=$work/tmp "$bankcheck" run --no-progress "${extra[@]}" --format json -o "$work/r.json" -- "$@" \
    > "$work/out" 2> "$work/err" &
  bg=$!
}
finish() {
  wait "$bg"
  status=$?
  bg=""
}

case $case in
  killed_program)
    # Killed at once: the last launch's counts may not have been saved yet, but the launch is
    # never missing silently.
    start "$bin/endings" wait
    wait_for "$work/out" '^ready' || { show; exit 1; }
    kill -9 "$(sed -n 's/^pid //p' "$work/out")"
    finish
    [ "$status" = 137 ] || fail "exit code $status, expected 137"
    grep -q "endings was killed by SIGKILL" "$work/err" || fail "no word of SIGKILL on standard error"
    json "not r['complete'] and r['files'][0]['process']['signal'] == 9"
    json "'killed by SIGKILL' in r['files'][0]['incomplete'][0]"
    json "kernels[0]['name'] == 'column' and kernels[0]['shared_wavefronts'] > 0"
    json "'row' in [k['name'] for k in kernels] or any(s.startswith('kernel row: 1 analysed launch') for s in r['files'][0]['incomplete'])"
    # Killed a second after its last launch: every count was saved.
    start "$bin/endings" wait
    wait_for "$work/out" '^ready' || { show; exit 1; }
    sleep 1
    kill -9 "$(sed -n 's/^pid //p' "$work/out")"
    finish
    [ "$status" = 137 ] || fail "exit code $status, expected 137"
    json "[k['name'] for k in kernels] == ['column', 'row'] and len(r['files'][0]['incomplete']) == 1"
    ;;
  sigterm_forwarded)
    start "$bin/endings" wait
    wait_for "$work/out" '^ready' || { show; exit 1; }
    kill -TERM "$bg"
    finish
    [ "$status" = 143 ] || fail "exit code $status, expected 143"
    json "not r['complete'] and r['files'][0]['process']['signal'] == 15"
    json "[k['name'] for k in kernels] == ['column', 'row']"
    ;;
  sigterm_in_first_launch)
    start "$bin/endings" long
    wait_for "$work/out" '^launching' || { show; exit 1; }
    sleep 1
    kill -TERM "$bg"
    finish
    [ "$status" = 143 ] || fail "exit code $status, expected 143"
    [ -f "$work/r.json" ] || { fail "no report"; show; exit 1; }
    json "not r['complete'] and r['files'][0]['process']['signal'] == 15"
    json "'killed by SIGTERM' in r['files'][0]['incomplete'][0]"
    json "any(s.startswith('kernel spin') for s in r['files'][0]['incomplete'])"
    grep -q "no kernel had been analysed" "$work/err" && fail "standard error says no kernel had been analysed"
    ;;
  sigint_sighup_forwarded)
    # Job control on: bankcheck runs as a terminal's shell would run it (a background job of a
    # script would start with SIGINT ignored, and so would its program).
    set -m
    for sig in INT:2 HUP:1; do
      start "$bin/endings" wait
      wait_for "$work/out" '^ready' || { show; exit 1; }
      kill -"${sig%:*}" "$bg"
      finish
      n=${sig#*:}
      [ "$status" = $((128 + n)) ] || fail "SIG${sig%:*}: exit code $status, expected $((128 + n))"
      json "r['files'][0]['process']['signal'] == $n and not r['complete']"
    done
    ;;
  bankcheck_killed)
    start "$bin/family" tree
    for _ in $(seq 200); do
      [ "$(grep -c '^pid ' "$work/out" 2>/dev/null)" -ge 3 ] && break
      sleep 0.1
    done
    pids=$(sed -n 's/^pid //p' "$work/out")
    [ "$(echo "$pids" | wc -w)" = 3 ] || { fail "expected 3 processes, got: $pids"; show; exit 1; }
    kill -9 "$bg"
    finish
    left=$pids
    for _ in $(seq 100); do
      left=""
      for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
      [ -z "$left" ] && break
      sleep 0.1
    done
    [ -z "$left" ] || fail "processes left running after bankcheck was killed:$left"
    for p in $left; do kill -9 "$p" 2>/dev/null; done
    # Nor its job's directory.
    for _ in $(seq 50); do
      [ -z "$(ls "$work/tmp")" ] && break
      sleep 0.1
    done
    [ -z "$(ls "$work/tmp")" ] || fail "the job's directory was left: $(ls "$work/tmp")"
    ;;
  ranks)
    start "$bin/family" ranks 2
    finish
    [ "$status" = 0 ] || fail "exit code $status, expected 0"
    grep -qx "done, 0 failed" "$work/out" || fail "the program's output is not 'done, 0 failed'"
    json "r['complete'] and len(r['files']) == 3"
    json "len({f['process']['pid'] for f in r['files']}) == 3"
    json "r['files'][0]['process']['root'] and 'rank' not in r['files'][0]['process']"
    json "sorted(f['process'].get('rank', '') for f in r['files'][1:]) == ['1', '2']"
    json "all(f['process']['rank_variable'] == 'RANK' for f in r['files'][1:])"
    json "all(f['process']['command'][1:3] == ['worker', f['process']['rank']] for f in r['files'][1:])"
    json "[k['name'] for k in kernels] == ['column'] * 3"
    # The text report names each process in its section.
    "$bankcheck" run --no-progress "${extra[@]}" -- "$bin/family" ranks 2 > "$work/out" 2> "$work/err"
    [ "$(grep -c ': note: process [0-9]* (rank [12]): ' "$work/err")" = 2 ] ||
      fail "the text report does not name the two workers"
    ;;
  crashed_rank)
    start "$bin/family" crash 2
    finish
    [ "$status" = 6 ] || fail "exit code $status, expected 6 (the launcher's)"
    json "not r['complete'] and len(r['files']) == 3"
    json "[f['process']['signal'] for f in r['files'] if f['process'].get('rank') == '1'] == [11]"
    json "[f['complete'] for f in r['files'] if f['process'].get('rank') != '1'] == [True, True]"
    json "[k['name'] for k in kernels] == ['column'] * 3"
    ;;
  *)
    echo "lifecycle_test.sh: unknown case $case" >&2
    exit 2
    ;;
esac
[ $bad = 1 ] && show
exit $bad
