#!/usr/bin/env bash
# Runs a test program on bankcheck's libcuda.so.1 (under the program's own CUDA runtime) and
# checks what it did.
#
# Usage: run.sh LIBDIR preload|path [OPTION...] -- PROGRAM [ARG...]
#   preload: LD_PRELOAD names the library; path: LD_LIBRARY_PATH names its directory.
#   --env NAME=VALUE       set for the program
#   --record               select the record executor, its lines in a file of their own
#   --exit N               the program's exit code (default 0)
#   --stdout TEXT          the program's whole standard output, one line (default: empty)
#   --stderr-has TEXT      standard error has a line containing TEXT
#   --stderr-count TEXT=N  standard error has exactly N lines containing TEXT
#   --record-has REGEX     a record line matches REGEX (grep -E, anchored)
# Prints what differs, and the program's output, and exits 1 on any difference.
set -u
lib=$1 mode=$2
shift 2
envs=() exit_want=0 stdout_want="" record=0
has=() counts=() records=()
while [ $# -gt 0 ]; do
  case $1 in
    --env) envs+=("$2"); shift 2 ;;
    --record) record=1; shift ;;
    --exit) exit_want=$2; shift 2 ;;
    --stdout) stdout_want=$2; shift 2 ;;
    --stderr-has) has+=("$2"); shift 2 ;;
    --stderr-count) counts+=("$2"); shift 2 ;;
    --record-has) records+=("$2"); record=1; shift 2 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $mode in
  preload) envs+=("LD_PRELOAD=$lib/libcuda.so.1") ;;
  path) envs+=("LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
  *) echo "run.sh: mode must be preload or path" >&2; exit 2 ;;
esac
[ $record = 1 ] && envs+=("BANKCHECK_EXECUTOR=record" "BANKCHECK_RECORD=$work/record")

env "${envs[@]}" "$@" > "$work/stdout" 2> "$work/stderr"
status=$?
bad=0
fail() { echo "FAIL: $*"; bad=1; }
[ "$status" = "$exit_want" ] || fail "exit code $status, expected $exit_want"
if [ -n "$stdout_want" ]; then
  [ "$(cat "$work/stdout")" = "$stdout_want" ] || fail "standard output is not '$stdout_want'"
else
  [ -s "$work/stdout" ] && fail "standard output is not empty"
fi
grep -q '^bankcheck' "$work/stdout" && fail "bankcheck wrote to standard output"
for text in "${has[@]+"${has[@]}"}"; do
  grep -qF -- "$text" "$work/stderr" || fail "standard error lacks '$text'"
done
for pair in "${counts[@]+"${counts[@]}"}"; do
  text=${pair%=*} want=${pair##*=}
  got=$(grep -cF -- "$text" "$work/stderr")
  [ "$got" = "$want" ] || fail "standard error has $got lines with '$text', expected $want"
done
for re in "${records[@]+"${records[@]}"}"; do
  grep -qE -- "^($re)\$" "$work/record" 2>/dev/null || fail "no record line matches '$re'"
done
if [ $bad = 1 ]; then
  echo "--- standard output"; cat "$work/stdout"
  echo "--- standard error"; cat "$work/stderr"
  if [ -f "$work/record" ]; then echo "--- record"; cat "$work/record"; fi
fi
exit $bad
