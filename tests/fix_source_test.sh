#!/usr/bin/env bash
# fix reads the source as nvcc compiles it and speaks in its terms (tests/data/fix_source):
# - a tile side from an included header, from -D over the file's #ifndef default, from -p's
#   compile_commands.json entry (-D and -I) and from the flags after --: each --apply writes
#   the padded declaration, which is right only when the side was read;
# - a struct member (s.x) padded in the struct, an array of structs padded as the struct
#   (a member added): the suggested code, pasted in, compiles with nvcc;
# - --apply that writes nothing exits 3 and says why on standard error.
# Usage: fix_source_test.sh BANKCHECK   (needs nvcc; skipped, exit 77, without it)
set -u
B=$(readlink -f "$1")
D=$(cd "$(dirname "$0")/data/fix_source" && pwd)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bankcheck-fix-source-XXXXXX")
trap 'rm -rf "$W"' EXIT
cp -r "$D"/. "$W"
cd "$W" || exit 1
fail=0
check() {  # NAME CONDITION-COMMAND
  if bash -c "$2"; then echo "ok $1"; else echo "FAIL $1: $2"; fail=$((fail + 1)); fi
}

# 1. Sizes read as nvcc reads them.
"$B" fix from_header.cu --apply-to h.cu >h.out 2>h.err; echo $? >h.rc
check header "grep -qx 0 h.rc && grep -qF 'tile[TILE][TILE + 1];' h.cu && grep -qF '32 rows of 128 B' h.out"
"$B" fix from_define.cu -D TILE=32 --apply-to d.cu >d.out 2>d.err; echo $? >d.rc
check define "grep -qx 0 d.rc && grep -qF 'tile[TILE][TILE + 1];' d.cu && grep -qF '32 rows of 128 B' d.out"
cat >compile_commands.json <<JSON
[{"directory": "$W", "file": "$W/from_build.cu",
  "command": "nvcc -arch=sm_90 -DTILE_BASE=16 -I inc -c from_build.cu -o from_build.o"}]
JSON
"$B" fix from_build.cu -p . --apply-to p.cu >p.out 2>p.err; echo $? >p.rc
check compile_db "grep -qx 0 p.rc && grep -qF 'tile[SIDE][SIDE + 1];' p.cu && grep -qF '32 rows of 128 B' p.out"
"$B" fix from_build.cu --apply-to x.cu -- -DTILE_BASE=16 -Iinc >x.out 2>x.err; echo $? >x.rc
check pass_through "grep -qx 0 x.rc && grep -qF 'tile[SIDE][SIDE + 1];' x.cu"

# 2. Struct members and arrays of structs, in the source's terms; the code compiles.
"$B" fix members.cu --apply-to m.cu >m.out 2>m.err; echo $? >m.rc
check member "grep -qx 0 m.rc && grep -qF 'pad each 128-byte row of s.x by 1 element' m.out &&
  grep -qF 'struct { float x[32][32 + 1]; float y[32][32]; } s;' m.cu &&
  grep -qF 's.x[j][tx ^ j]' m.out && '$NVCC' -arch=sm_90 -c m.cu -o m.o"
"$B" fix particles.cu --format json >a.json 2>a.err; echo $? >a.rc
check record_words "grep -qx 0 a.rc && grep -qF 'pad Particle from 8 to 9 words with a last member: int bank_pad_[1];' a.json &&
  grep -qF '\"from\": \"record\"' a.json"
# The suggested edit pasted over its line: the padded struct compiles, and its stride is the
# one the suggestion replayed (36 B: 9216 B for 256 elements).
python3 - <<'PY' || { echo "FAIL record_edit"; fail=$((fail + 1)); }
import json
fix = json.load(open("a.json"))
s = fix["kernels"][0]["arrays"][0]["suggestions"][0]
assert s["kind"] == "padding" and s["bytes_after"] == 9216, s
lines = open("particles.cu").read().split("\n")
for e in s["edits"]:
    assert lines[e["line"] - 1] == e["before"], e
    lines[e["line"] - 1] = e["after"]
open("a.cu", "w").write("\n".join(lines) + "\nstatic_assert(sizeof(Particle) == 36, \"stride\");\n")
PY
check record_compiles "'$NVCC' -arch=sm_90 -c a.cu -o a.o"
# Every suggestion's edits for the struct member (XOR, rotation, padding), pasted in, compile.
"$B" fix members.cu --format json >mj.json 2>mj.err
python3 - <<'PY' || { echo "FAIL member_edits"; fail=$((fail + 1)); }
import json
fix = json.load(open("mj.json"))
kinds = []
for i, s in enumerate(fix["kernels"][0]["arrays"][0]["suggestions"]):
    lines = open("members.cu").read().split("\n")
    for e in s["edits"]:
        assert lines[e["line"] - 1] == e["before"], e
        lines[e["line"] - 1] = e["after"]
    if s.get("declaration"):
        lines[3] = s["declaration"]
    open(f"m{i}.cu", "w").write("\n".join(lines))
    kinds.append(s["kind"])
assert {"xor-swizzle", "rotation", "padding"} <= set(kinds), kinds
PY
for f in m0.cu m1.cu m2.cu; do check "member_compiles_$f" "'$NVCC' -arch=sm_90 -c $f -o $f.o"; done

# 3. --apply that writes nothing: exit 3, the reason per array on standard error.
"$B" fix particles.cu --apply >n.out 2>n.err; echo $? >n.rc
check apply_type "grep -qx 3 n.rc && grep -qF 'nothing written' n.err &&
  grep -qF \"'p' of aos (line 8): its padding changes the type Particle\" n.err && test ! -e particles.fixed.cu"
"$B" fix clean.cu --apply >c.out 2>c.err; echo $? >c.rc
check apply_clean "grep -qx 3 c.rc && grep -qF 'no shared array has bank conflicts' c.err && test ! -e clean.fixed.cu"
cat >macro_elsewhere.cu <<'CU'
// bankcheck: kernel=tr grid=1 block=32,8 arg=out=zeros:4096
#include <side_elsewhere.cuh>
__global__ void tr(float* out) {
  __shared__ float tile[TILE][TILE];
  for (int j = threadIdx.y; j < TILE; j += 8) tile[j][threadIdx.x] = j;
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += 8) out[j * TILE + threadIdx.x] = tile[threadIdx.x][j];
}
CU
mkdir -p elsewhere && echo '#define TILE 32' >elsewhere/side_elsewhere.cuh
# A header included with <...> is not read (only "..." ones are): the size is unknown, and
# --apply says so instead of writing a guess.
"$B" fix macro_elsewhere.cu -I elsewhere --apply >e.out 2>e.err; echo $? >e.rc
check apply_macro_elsewhere "grep -qx 3 e.rc && grep -qF \"'tile' of tr (line 4): the dimensions in\" e.err &&
  test ! -e macro_elsewhere.fixed.cu"
echo "fix_source: $fail failed"
exit $((fail > 0))
