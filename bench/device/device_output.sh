#!/usr/bin/env bash
# Device-side printf and assert on the GPU (programs/device_output.cu): the program's standard
# output and error apart and together, and its exit code, into OUT (default
# bench/device/results/device_output). From the repository root, on the device machine:
#   bash bench/device/device_output.sh [OUT]
set -u
out=${1:-${OUT:-bench/device/results/device_output}}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp bench/device/programs/device_output.cu "$work/" || exit 1
# Built in its own directory, so that __FILE__ is the bare file name, as the test builds it.
(cd "$work" && nvcc -O2 -lineinfo -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
  -o device_output device_output.cu) || exit 1
"$work/device_output" > "$out/stdout.txt" 2> "$out/stderr.txt"
echo "rc=$?" > "$out/rc.txt"
"$work/device_output" > "$out/both.txt" 2>&1
cat "$out/rc.txt"
