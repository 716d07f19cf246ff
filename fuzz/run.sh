#!/usr/bin/env bash
# Fuzzes the PTX parser: builds fuzz/ptx_parser_fuzz.cpp with libFuzzer, ASan and UBSan
# (clang++-14), runs it on fuzz/corpus/ptx for SECONDS (default 600), then minimizes the
# corpus with -merge=1 back into fuzz/corpus/ptx. Crashes land in $OUT/crashes/.
#
#   fuzz/run.sh [SECONDS]        OUT=build-fuzz by default; KEEP_CORPUS=1 skips the merge
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
out=${OUT:-build-fuzz}
corpus=fuzz/corpus/ptx
mkdir -p "$out/work" "$out/crashes"

# Only the parser's own sources: other files in src/ptx belong to other targets.
clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=all -Iinclude \
  src/ptx/lexer.cpp src/ptx/parser.cpp fuzz/ptx_parser_fuzz.cpp -o "$out/ptx_parser_fuzz"

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

# New inputs go to $out/work; the checked-in corpus is only read.
"$out/ptx_parser_fuzz" "$out/work" "$corpus" -dict="$out/ptx.dict" \
  -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
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
  cp "$corpus"/*.ptx "$out/merged/" 2>/dev/null || true
  "$out/ptx_parser_fuzz" -merge=1 -use_counters=0 -max_len=4096 -timeout=10 "$out/merged" "$corpus" "$out/work" \
    2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' || true
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "$out"/merged/* "$corpus/"
  echo "corpus: $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KB"
fi
