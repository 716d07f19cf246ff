#!/usr/bin/env bash
# The text report's layout: the bank picture folded to --columns (and to $COLUMNS on a pipe,
# whole in a file), and --quiet (the findings and their line only; the gate still on stderr).
# Usage: layout_test.sh BANKCHECK   (run from the repository root)
set -uo pipefail
bin=$1
fail=0
say() { echo "layout_test: $*" >&2; fail=1; }
widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
# A 32-way conflict: every bank column of the picture is drawn.
explain=(explain --decl 'float tile[32][32]' --expr 'tile[threadIdx.x][0]' --block 32)

for cols in 80 120; do
  out=$("$bin" "${explain[@]}" --columns $cols) || say "explain --columns $cols failed"
  w=$(printf '%s\n' "$out" | grep -E '^ +(bank|wf) ' | widest)
  [ "$w" -le "$cols" ] || say "--columns $cols: a picture row of $w columns"
  n=$(printf '%s\n' "$out" | grep -c '^    bank ')
  [ "$n" = 2 ] || say "--columns $cols: $n bank headers, not 2 (banks 0-15 and 16-31)"
  printf '%s\n' "$out" | grep -Eq '^    bank +0 +1 .* 15$' || say "--columns $cols: no header of banks 0-15"
  printf '%s\n' "$out" | grep -Eq '^    bank +16 +17 .* 31$' || say "--columns $cols: no header of banks 16-31"
  rows=$(printf '%s\n' "$out" | grep -c '^  wf ')
  [ "$rows" = 64 ] || say "--columns $cols: $rows wavefront rows, not 32 per group"
done
# Wide: one group of 32 banks, rows of 137 columns.
out=$("$bin" "${explain[@]}" --columns 200)
[ "$(printf '%s\n' "$out" | grep -c '^    bank ')" = 1 ] || say "--columns 200: folded"
[ "$(printf '%s\n' "$out" | grep -E '^    bank ' | widest)" -le 137 ] || say "--columns 200: header too wide"
# A pipe: $COLUMNS when set, else the whole picture; a file (-o): always whole.
[ "$(COLUMNS=80 "$bin" "${explain[@]}" | grep -c '^    bank ')" = 2 ] || say "COLUMNS=80 on a pipe: not folded"
[ "$(env -u COLUMNS "$bin" "${explain[@]}" | grep -c '^    bank ')" = 1 ] || say "a pipe without COLUMNS: folded"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COLUMNS=80 "$bin" "${explain[@]}" -o "$tmp/pic.txt"
[ "$(grep -c '^    bank ' "$tmp/pic.txt")" = 1 ] || say "-o FILE with COLUMNS=80: folded"
# A terminal: its width (script(1) gives a pseudo-terminal of 100 columns).
if command -v script >/dev/null; then
  script -qec "stty cols 100; env -u COLUMNS $bin ${explain[*]@Q}" /dev/null >"$tmp/tty.txt" 2>&1
  [ "$(grep -c '^    bank ' "$tmp/tty.txt")" = 2 ] || say "a 100-column terminal: not folded"
fi
"$bin" "${explain[@]}" --columns 39 >/dev/null 2>"$tmp/err" && say "--columns 39 accepted"
grep -q -- '--columns' "$tmp/err" || say "--columns 39: no message naming it"
# check: the same picture, folded.
out=$("$bin" check tests/ci/conflict.cu --columns 80 --no-progress)
[ "$(printf '%s\n' "$out" | grep -c '^    bank ')" = 2 ] || say "check --columns 80: not folded"

# --quiet: the finding, its source line and caret (on the conflicting access), and the summary
# line; nothing else on stdout.
out=$("$bin" check tests/ci/conflict.cu --quiet 2>"$tmp/err"); rc=$?
[ $rc = 0 ] || say "check --quiet exited $rc"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] || say "check --quiet: not 4 lines:
$out"
printf '%s\n' "$out" | head -n 1 | grep -q '^tests/ci/conflict.cu:7:41: error: 32-way bank conflict' ||
  say "check --quiet: no finding line"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "1 kernel: 1 error" ] || say "check --quiet: no summary line"
[ ! -s "$tmp/err" ] || say "check --quiet: stderr not empty: $(cat "$tmp/err")"
out=$("$bin" check tests/ci/conflict.cu --quiet --fail-on 'ways>1' 2>"$tmp/err"); rc=$?
[ $rc = 1 ] || say "check --quiet --fail-on: exit $rc, not 1"
grep -q "^bankcheck: --fail-on 'ways>1' crossed" "$tmp/err" || say "check --quiet: no gate line on stderr"
out=$("$bin" check tests/ci/padded.cu --quiet 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] || say "check --quiet of a padded tile: exit $rc, output '$out'"
out=$("$bin" check tests/ci/conflict.cu tests/ci/padded.cu --quiet 2>&1)
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] || say "check --quiet of two files: not 4 lines:
$out"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "2 files, 2 kernels: 1 error" ] ||
  say "check --quiet of two files: no summary of the run"
"$bin" check tests/ci/missing.cu --quiet 2>"$tmp/err" && say "a missing file passed"
grep -q '^bankcheck: error: .*missing.cu' "$tmp/err" || say "check --quiet: the error not shown"
out=$("$bin" fix tests/ci/padded.cu --quiet 2>&1)
[ -z "$out" ] || say "fix --quiet of a padded tile: '$out'"
out=$("$bin" fix tests/ci/conflict.cu --quiet 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^  [0-9]\. ')" = 1 ] || say "fix --quiet: not one suggestion:
$out"
[ $fail = 0 ] && echo "layout_test: pictures folded at 80 and 120 columns, whole when wide; --quiet"
exit $fail
