#!/usr/bin/env bash
# Rebuilds the committed fat binaries of tests/fatbin_test.cpp with the toolkit on PATH (they
# were made with CUDA 13.0): tile.cu's fat binary stored three ways (zstd, LZ4, none, each for
# the PTX and the cubin), the PTX nvcc gives for the same flags, and minify.ptx (hand-written:
# comments, strings, odd whitespace) as the fatbinary tool embeds it. nvcc records the source's
# absolute path (.file, line tables), so the sources are built in one fixed directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=/tmp/bankcheck-fatbin-data
rm -rf "$work"
mkdir -p "$work"
cp "$here"/tile.cu "$here"/minify.ptx "$work"/
cd "$work"
flags=(-arch=sm_90 -lineinfo)
nvcc -fatbin "${flags[@]}" --compress-mode=size tile.cu -o tile_zstd.fatbin
nvcc -fatbin "${flags[@]}" --compress-mode=speed -Xfatbin -compress-all tile.cu -o tile_lz4.fatbin
nvcc -fatbin "${flags[@]}" --no-compress tile.cu -o tile_none.fatbin
nvcc -ptx "${flags[@]}" tile.cu -o tile.ptx
fatbinary -64 --create=minify.fatbin --image3=kind=ptx,sm=90,file=minify.ptx --compress=false
cp tile_zstd.fatbin tile_lz4.fatbin tile_none.fatbin tile.ptx minify.fatbin "$here"/
rm -rf "$work"
