#!/usr/bin/env bash
# Device printf and a failed assert() under `bankcheck run`, against what the H200's driver
# printed for the same program (bench/device/results/device_output, bench/device/
# device_output.sh): the program's standard output byte for byte (the kernels' lines after the
# host's lines that precede the synchronization), its exit code, and the driver's assert line
# on standard error.
#
# Usage: device_output_test.sh BANKCHECK PROGRAM RESULTS
set -u
bankcheck=$1 program=$2 results=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bankcheck" run --no-progress -o "$work/report.txt" -- "$program" > "$work/out" 2> "$work/err"
rc=$?
bad=0
[ "rc=$rc" = "$(cat "$results/rc.txt")" ] || { echo "FAIL: exit code $rc, on the GPU $(cat "$results/rc.txt")"; bad=1; }
if ! cmp -s "$work/out" "$results/stdout.txt"; then
  echo "FAIL: standard output differs from the GPU's:"
  diff "$results/stdout.txt" "$work/out"
  bad=1
fi
while IFS= read -r line; do
  grep -qxF -- "$line" "$work/err" || { echo "FAIL: standard error lacks the GPU's line: $line"; bad=1; }
done < "$results/stderr.txt"
[ $bad = 0 ] || { echo "--- standard error"; cat "$work/err"; }
exit $bad
