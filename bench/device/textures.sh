#!/usr/bin/env bash
# Texture fetches on the GPU (programs/textures.cu): every fetched value's bits and the exit
# code, into OUT (default bench/device/results/textures); and the texture unit's weights and
# coordinate steps read out directly (programs/texture_weights.cu, weights.txt); surface loads
# and stores (programs/surfaces.cu, surfaces.txt); layered textures and surfaces
# (programs/layered.cu, layered.txt). From the repository root, on the device
# machine:
#   bash bench/device/textures.sh [OUT]
set -u
out=${1:-${OUT:-bench/device/results/textures}}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp bench/device/programs/textures.cu bench/device/programs/texture_weights.cu \
  bench/device/programs/cuda_check.h \
  bench/device/programs/surfaces.cu bench/device/programs/layered.cu "$work/" || exit 1
for p in textures texture_weights surfaces layered; do
  (cd "$work" && nvcc -O2 -lineinfo -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
    -o $p $p.cu) || exit 1
done
"$work/textures" > "$out/stdout.txt" 2> "$out/stderr.txt"
echo "rc=$?" > "$out/rc.txt"
cat "$out/rc.txt"
"$work/texture_weights" > "$out/weights.txt" || exit 1
"$work/surfaces" > "$out/surfaces.txt" || exit 1
"$work/layered" > "$out/layered.txt" || exit 1
