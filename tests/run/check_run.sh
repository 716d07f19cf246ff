#!/usr/bin/env bash
# Runs `bankcheck run` on a test program and checks what it did.
#
# Usage: check_run.sh BANKCHECK [OPTION...] -- [RUN OPTION...] -- PROGRAM [ARG...]
#   --exit N            bankcheck's exit code (default 0)
#   --stdout TEXT       the program's whole standard output (default: empty)
#   --stdout-has TEXT   standard output has a line containing TEXT (repeatable; then the
#                       output need not be one line)
#   --stderr-has TEXT   standard error has a line containing TEXT (repeatable)
#   --stderr-lacks TEXT no line of standard error contains TEXT (repeatable)
#   --json EXPR         with the run option --format json -o FILE added: the Python expression
#                       EXPR over the report `r` (and `kernels`, every file's kernels) is
#                       true (repeatable)
#   --no-dashes         PROGRAM follows the run options directly, without `--` (as the
#                       profilers take it)
#   --command WORDS     the subcommand instead of `run` (e.g. "fix")
# Prints what differs, and the output, and exits 1 on any difference.
set -u
bankcheck=$1
shift
exit_want=0 stdout_want="" has=() lacks=() json=() out_has=() dashes=(--) command=run
while [ $# -gt 0 ]; do
  case $1 in
    --exit) exit_want=$2; shift 2 ;;
    --stdout) stdout_want=$2; shift 2 ;;
    --stdout-has) out_has+=("$2"); shift 2 ;;
    --stderr-has) has+=("$2"); shift 2 ;;
    --stderr-lacks) lacks+=("$2"); shift 2 ;;
    --json) json+=("$2"); shift 2 ;;
    --no-dashes) dashes=(); shift ;;
    --command) command=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "check_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ ${#json[@]} -gt 0 ] && opts+=(--format json -o "$work/report.json")
"$bankcheck" $command --no-progress "${opts[@]}" "${dashes[@]}" "$@" > "$work/stdout" 2> "$work/stderr"
status=$?
bad=0
fail() { echo "FAIL: $*"; bad=1; }
[ "$status" = "$exit_want" ] || fail "exit code $status, expected $exit_want"
if [ -n "$stdout_want" ]; then
  [ "$(cat "$work/stdout")" = "$stdout_want" ] || fail "standard output is not '$stdout_want'"
elif [ ${#out_has[@]} -eq 0 ]; then
  [ -s "$work/stdout" ] && fail "standard output is not empty"
fi
for t in "${out_has[@]+"${out_has[@]}"}"; do
  grep -qF -- "$t" "$work/stdout" || fail "standard output has no line with '$t'"
done
for t in "${has[@]}"; do
  grep -qF -- "$t" "$work/stderr" || fail "standard error has no line with '$t'"
done
for t in "${lacks[@]}"; do
  grep -qF -- "$t" "$work/stderr" && fail "standard error has a line with '$t'"
done
for e in "${json[@]}"; do
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); kernels=[k for f in r['files'] for k in f.get('kernels', [])]; sys.exit(0 if ($e) else 1)" \
    "$work/report.json" || fail "the report fails: $e"
done
if [ $bad = 1 ]; then
  echo "--- standard output"; cat "$work/stdout"
  echo "--- standard error"; cat "$work/stderr"
fi
exit $bad
