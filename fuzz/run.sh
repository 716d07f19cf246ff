#!/usr/bin/env bash
# Fuzzes one target with libFuzzer, ASan and UBSan (clang++-14): builds it, runs it on its
# corpus under fuzz/corpus for SECONDS (default 600), then minimizes the corpus with -merge=1
# back into place. Crashes land in $OUT/crashes/.
#   ptx     fuzz/ptx_parser_fuzz.cpp, the PTX parser (corpus fuzz/corpus/ptx)
#   fatbin  fuzz/fatbin_fuzz.cpp, the fat binary and host ELF readers (fuzz/corpus/fatbin)
#
#   fuzz/run.sh [SECONDS] [TARGET]   TARGET=ptx by default; OUT=build-fuzz by default (the
#                                    fatbin target: build-fuzz-fatbin); KEEP_CORPUS=1 skips
#                                    the merge
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
target=${2:-ptx}
cxx=(clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
     -Iinclude)
case "$target" in
  ptx)
    out=${OUT:-build-fuzz}
    corpus=fuzz/corpus/ptx
    seeds='*.ptx'      # the named seeds, kept by the merge
    max_len=4096
    keep_max=4096      # the largest input the merge keeps
    binary="$out/ptx_parser_fuzz"
    ;;
  fatbin)
    out=${OUT:-build-fuzz-fatbin}
    corpus=fuzz/corpus/fatbin
    seeds='seed_*'
    max_len=16384      # the ELF object seeds are 8 KB
    keep_max=4096      # mutated ELF objects (8 KB each) would triple the corpus
    binary="$out/fatbin_fuzz"
    ;;
  *)
    echo "usage: fuzz/run.sh [SECONDS] [ptx|fatbin]" >&2
    exit 2
    ;;
esac
mkdir -p "$out/work" "$out/crashes"

if [[ "$target" == ptx ]]; then
# The sources of bankcheck_ptx (src/CMakeLists.txt): other files in src/ptx belong to other
# targets.
"${cxx[@]}" src/ptx/lexer.cpp src/ptx/parser.cpp src/ptx/words.cpp src/ptx/scoped_names.cpp \
  fuzz/ptx_parser_fuzz.cpp -o "$binary"

# PTX tokens for the mutator.
cat > "$out/ptx.dict" <<'DICT'
".version"
".target"
".address_size"
".file"
".loc"
".section"
".pragma"
".alias"
".visible"
".extern"
".weak"
".common"
".entry"
".func"
".reg"
".param"
".shared"
".global"
".const"
".local"
".align"
".ptr"
".attribute"
".v2"
".v4"
".b8"
".b32"
".u64"
".f32"
".f64"
".f16"
".pred"
".maxntid"
".reqntid"
".minnctapersm"
".maxnreg"
".noreturn"
".callprototype"
".branchtargets"
"function_name"
"inlined_at"
"generic("
"call.uni"
"ld.shared.v4.f32"
"setp.eq.s32"
"bra.uni"
".shared::cluster"
"%r"
"%rd"
"%p"
"%tid.x"
"%clock64"
"$L__BB0_1"
"0f3F800000"
"0d3FF0000000000000"
"0x"
"0b"
"1.5e-3"
"U"
"+-"
"[%r1+-4]"
"%p1|%p2"
"!%p1"
"@%p1"
"@!"
"<22>"
"{"
"}"
"("
")"
"["
"]"
","
";"
":"
"="
"_"
"/*"
"*/"
"//"
"\""
"\x0d\x0a"
DICT
dict="$out/ptx.dict"
else
# The sass layer's readers of fat binaries and ELF files, and the two decompressors.
"${cxx[@]}" src/sass/elf.cpp src/sass/fatbin.cpp src/sass/fatbin_codec.cpp \
  src/sass/fatbin_select.cpp src/sass/cuda_elf.cpp fuzz/fatbin_fuzz.cpp -lzstd -llz4 -o "$binary"

# Magic numbers and the fields' usual values, little-endian, for the mutator.
cat > "$out/fatbin.dict" <<'DICT'
"\x50\xed\x55\xba\x01\x00\x10\x00"
"\xb1\x43\x62\x46"
"\x01\x00\x01\x01"
"\x02\x00\x01\x01"
"\x08\x00\x01\x01"
"\x40\x00\x00\x00"
"\x48\x00\x00\x00"
"\x68\x00\x00\x00"
"\x5a\x00\x00\x00"
"\x11\x80\x00\x00\x00\x00\x00\x00"
"\x11\x20\x00\x00\x00\x00\x00\x00"
"\x11\x00\x10\x00"
"\x11\x00\x20\x00"
"\x11\x00\x00\x01"
"\x28\xb5\x2f\xfd"
"\x7fELF"
".nv_fatbin"
"__nv_relfatbin"
"libcudart.so.13"
"__cudaRegisterFatBinary"
DICT
dict="$out/fatbin.dict"
fi

# New inputs go to $out/work; the checked-in corpus is only read.
"$binary" "$out/work" "$corpus" -dict="$dict" \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/crashes/" -print_final_stats=1 2>&1 | tee "$out/fuzz.log" | \
  grep -E '^#[0-9]+.*(pulse|DONE)|ERROR|SUMMARY|stat::' || true

if ls "$out"/crashes/* >/dev/null 2>&1; then
  echo "crashes found: $(ls "$out"/crashes)" >&2
  exit 1
fi

if [[ "${KEEP_CORPUS:-0}" != 1 ]]; then
  # Minimize: keep the named seeds, add what else covers new edges (-use_counters=0 keeps
  # the corpus to a few hundred files: hit counts are not kept as features).
  rm -rf "$out/merged"
  mkdir -p "$out/merged"
  cp "$corpus"/$seeds "$out/merged/" 2>/dev/null || true
  rm -rf "$out/candidates"
  mkdir -p "$out/candidates"
  find "$corpus" "$out/work" -type f -size -$((keep_max + 1))c -exec cp {} "$out/candidates/" \;
  "$binary" -merge=1 -use_counters=0 -max_len="$max_len" -timeout=10 "$out/merged" "$out/candidates" \
    2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' || true
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "$out"/merged/* "$corpus/"
  echo "corpus: $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KB"
fi
