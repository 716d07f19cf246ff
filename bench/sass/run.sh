#!/usr/bin/env bash
# Records `cuobjdump -sass` listings of bench/sass/forms.cu and of every examples/*.cu
# for sm_90, so that the decoder in src/sass/ can be checked against the disassembler
# of a full CUDA toolkit. Run on a machine with cuobjdump (no GPU needed); commit the
# output under tests/data/sass/ to replay it in CI.
#   bench/sass/run.sh [OUTDIR]        (default: $OUT, else bench/sass/measured)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-${OUT:-$here/measured}}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for src in "$here/forms.cu" "$root"/examples/*.cu; do
  name="$(basename "$src" .cu)"
  # The same two steps the analysis takes: PTX from nvcc, the cubin from ptxas on that PTX.
  nvcc -arch=sm_90 -ptx -lineinfo "$src" -o "$work/$name.ptx"
  ptxas -arch=sm_90 -lineinfo -v "$work/$name.ptx" -o "$work/$name.cubin" 2> "$out/$name.ptxas.txt"
  cuobjdump -sass "$work/$name.cubin" > "$out/$name.sass.txt"
  cp "$work/$name.ptx" "$work/$name.cubin" "$out/"
  if command -v nvdisasm > /dev/null; then
    nvdisasm -g -c "$work/$name.cubin" > "$out/$name.sass_lines.txt" || true
  fi
done
nvcc --version | tail -1 > "$out/toolkit.txt"
echo "wrote $(ls "$out" | wc -l) files to $out"
