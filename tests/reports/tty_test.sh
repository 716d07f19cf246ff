#!/usr/bin/env bash
# What a terminal sees: --color auto colours the text when standard output is a terminal
# (not with NO_COLOR, never into a pipe or a file), and a run longer than a second shows a
# progress line on standard error that is erased at the end. `script` gives the terminal.
# Usage: tty_test.sh BANKCHECK   (run from the repository root)
set -euo pipefail
bin=$1
if ! command -v script >/dev/null; then
  echo "tty_test: script (util-linux) not found" >&2
  exit 1
fi
fail() { echo "tty_test: $*" >&2; exit 1; }
seed="examples/seed001.cu --kernel bank_conflict_test"
esc=$'\033'
# A terminal: coloured.
out=$(script -qec "$bin check $seed" /dev/null)
[[ $out == *"${esc}[01;31merror:${esc}[0m"* ]] || fail "no colour on a terminal"
# NO_COLOR, a pipe: plain. (On a loaded machine the run may pass a second, and the
# progress line's erase sequence, ESC [K, is not a colour.)
out=$(NO_COLOR=1 script -qec "$bin check $seed" /dev/null)
[[ $out != *"${esc}[0"* ]] || fail "colour despite NO_COLOR"
out=$("$bin" check $seed)
[[ $out != *"$esc"* ]] || fail "colour into a pipe"
# A long run on a terminal: the progress line, then erased; none on a pipe.
# (Four kernels of 32,768 CTAs each on one thread: some seconds even on a fast core.)
out=$(script -qec "$bin check examples/transpose.cu --grid 256,128 --blocks all --threads 1 --format json -o /dev/null" /dev/null)
[[ $out == *"bankcheck: kernel "*" of 4: "*" of 32,768 CTAs"* ]] || fail "no progress line: $out"
[[ $out == *$'\r'"${esc}[K" ]] || fail "the progress line is not erased at the end"
err=$("$bin" check examples/transpose.cu --kernel transposeShared --grid 256,128 --blocks all --format json -o /dev/null 2>&1)
[[ -z $err ]] || fail "progress on a pipe: $err"
# --no-progress on a terminal: nothing.
out=$(script -qec "$bin check examples/transpose.cu --kernel transposeShared --grid 256,128 --blocks all --no-progress --format json -o /dev/null" /dev/null)
[[ -z $out ]] || fail "progress despite --no-progress: $out"
echo "tty_test: colour and progress as expected"
