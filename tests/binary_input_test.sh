#!/usr/bin/env bash
# `bankcheck check` on binaries: an executable (-cudart shared), an object file (-c), a fat
# binary (-fatbin), PTX (-ptx), a two-unit program (whole-program and -rdc=true) and an -rdc
# object (-dc), each built here with nvcc from the same
# source, each checked with the same flags as the source itself and required to give the
# same report (every site's and line's requests, wavefronts, ideal wavefronts, sectors, and
# the text report byte for byte); the source's launch comment read through the binary; the
# source gone (lines by file:line, same counts); content over extension; and what is refused
# with exit 2: a cubin (SASS only), a SASS-only executable, an ELF file without CUDA code,
# --launch, missing settings (the message names the binary and no host code).
#
# Usage: binary_input_test.sh BANKCHECK NVCC PYTHON DATA_DIR WORK_DIR
set -u
bankcheck=$1 nvcc=$2 python=$3 data=$4 work=$5
bankcheck=$(readlink -f "$bankcheck") data=$(readlink -f "$data")
rm -rf "$work"
mkdir -p "$work/src"
cp "$data/binaries/kernels.cu" "$data/fatbin/main.cu" "$data/fatbin/scale.cu" "$work/src/"
cd "$work" || exit 2
bad=0
fail() { echo "FAIL: $*"; bad=1; }

gen=(-gencode "arch=compute_90,code=[sm_90,compute_90]")
build() {  # OUTPUT NVCC-FLAGS...
  local out=$1
  shift
  "$nvcc" -std=c++17 -lineinfo "$@" -o "$out" > "build-$out.log" 2>&1 ||
    { cat "build-$out.log"; echo "FAIL: nvcc could not build $out"; exit 1; }
}
build app "${gen[@]}" -cudart shared src/kernels.cu
build kernels.o "${gen[@]}" -c src/kernels.cu
build kernels.fatbin "${gen[@]}" -fatbin src/kernels.cu
build kernels.ptx -arch=sm_90 -ptx src/kernels.cu
build kernels.cubin -arch=sm_90 -cubin src/kernels.cu
build app_sass_only -gencode arch=compute_90,code=sm_90 -cudart shared src/kernels.cu
build two_units "${gen[@]}" -cudart shared src/main.cu src/scale.cu
build two_units_rdc "${gen[@]}" -rdc=true -cudart shared src/main.cu src/scale.cu
build scale_dc.o "${gen[@]}" -dc src/scale.cu
cp /bin/true host_only

# bankcheck check ARGS... > OUT.txt / OUT.json, with its exit code and standard error.
check() {  # NAME ARGS...
  local name=$1
  shift
  "$bankcheck" check "$@" > "$name.txt" 2> "$name.err"
  echo $? > "$name.status"
  "$bankcheck" check --format json -o "$name.json" "$@" 2> /dev/null  # before a --
}

# What must agree between two checks of the same kernels, per kernel: the counts of every
# site and line (paths aside), the totals, the level, where each setting came from.
compare='
import json, sys
def drop(d):  # paths aside, at any depth
    if isinstance(d, dict):
        return {a: drop(b) for a, b in d.items() if a != "file"}
    if isinstance(d, list):
        return [drop(x) for x in d]
    return d
def norm(path):
    r = json.load(open(path))
    if "files" in r:
        r = r["files"][0]
    out = []
    for k in r["kernels"]:
        out.append({
            "name": k["name"], "grid": k.get("grid"), "block": k.get("block"),
            "shared": (k["shared_wavefronts"], k["shared_ideal_wavefronts"]),
            "sites": [drop(s) for s in k["sites"]],
            "lines": [drop(l) for l in k["lines"]],
            "settings": [(s["setting"], s["from"]) for s in k["settings_from"]],
            "level": r.get("level"),
        })
    return out
a, b = norm(sys.argv[1]), norm(sys.argv[2])
if len(sys.argv) > 3 and sys.argv[3] == "counts":  # parameters named p0, p1, ... (PTX)
    for k in a + b:
        del k["settings"]
if not a or not a[0]["sites"]:
    print("no sites in", sys.argv[1]); sys.exit(1)
if a != b:
    for x, y in zip(a, b):
        for key in x:
            if x[key] != y[key]:
                print(key, ":", sys.argv[1], x[key], "\n  vs", sys.argv[2], y[key])
    sys.exit(1)
'

# same [--counts] NAME BINARY SOURCE ARGS...: the binary's check equals the source's (with
# --counts, only the counts: a .ptx names its parameters p0, p1, ... and quotes no source).
same() {
  local counts=""
  [ "$1" = --counts ] && { counts=counts; shift; }
  local name=$1 binary=$2 source=$3
  shift 3
  check "$name" "$binary" "$@"
  check "$name.cu" "$source" "$@"
  [ "$(cat "$name.status")" = 0 ] || { fail "$name: exit $(cat "$name.status")"; cat "$name.err"; }
  "$python" -c "$compare" "$name.json" "$name.cu.json" $counts ||
    fail "$name: the JSON differs from $source's"
  [ -n "$counts" ] || cmp -s "$name.txt" "$name.cu.txt" ||
    { fail "$name: the text report differs from $source's"; diff "$name.txt" "$name.cu.txt" | head -20; }
}

# Every setting given (--smem too): the source's own check then takes nothing from main().
flags=(--kernel tile_transpose --grid 1 --block 32,32 --smem 0 --arg out=zeros:4096
       --arg in=random:4096)
for b in app kernels.o kernels.fatbin; do
  same "$b" "$b" src/kernels.cu "${flags[@]}"
  # strided's launch: the comment in src/kernels.cu, found through the binary's line table.
  same "$b-comment" "$b" src/kernels.cu --kernel strided
done
ptx_flags=(--kernel tile_transpose --grid 1 --block 32,32 --smem 0 --arg p0=zeros:4096
           --arg p1=random:4096)
same --counts kernels.ptx kernels.ptx src/kernels.cu "${ptx_flags[@]}"
grep -q "32-way bank conflict" app.txt || fail "app: no 32-way conflict in the report"
grep -q "^src/kernels.cu:13:" app.txt || fail "app: the conflict is not at src/kernels.cu:13"
grep -q "tile\[x\]\[y\]" app.txt || fail "app: the source line is not shown"
"$python" -c '
import json, sys
r = json.load(open("app-comment.json"))
k = (r["files"][0] if "files" in r else r)["kernels"][0]
grid = [s for s in k["settings_from"] if s["setting"] == "grid"][0]
sys.exit(0 if grid["from"] == "comment" and "src/kernels.cu:16" in grid["where"] else 1)
' || fail "app-comment: strided's grid does not come from the comment at src/kernels.cu:16"

# The second unit of a two-unit program, picked by --kernel.
same two_units two_units src/scale.cu --kernel scale_reversed --grid 1 --block 64 --smem 0 \
  --arg s=2 --arg p=zeros:256

# -rdc=true: the PTX of each unit is in __nv_relfatbin (the source checked with -rdc=true too).
scale=(--kernel scale_reversed --grid 1 --block 64 --smem 0 --arg s=2 --arg p=zeros:256)
same two_units_rdc two_units_rdc src/scale.cu "${scale[@]}" -- -rdc=true
same scale_dc scale_dc.o src/scale.cu "${scale[@]}" -- -rdc=true

# Content, not the name: the executable called .cu, the PTX called .txt.
cp app app_named.cu
cp kernels.ptx kernels_ptx.txt
same named app_named.cu src/kernels.cu "${flags[@]}"
same --counts ptx_named kernels_ptx.txt src/kernels.cu "${ptx_flags[@]}"

# refused NAME STATUS TEXT ARGS...: exit STATUS and TEXT on standard error.
refused() {
  local name=$1 want=$2 text=$3
  shift 3
  "$bankcheck" check "$@" > "$name.txt" 2> "$name.err"
  local status=$?
  [ "$status" = "$want" ] || fail "$name: exit $status, expected $want"
  grep -qF -- "$text" "$name.err" || { fail "$name: standard error lacks '$text'"; cat "$name.err"; }
}
refused cubin 2 "-gencode arch=compute_90,code=[sm_90,compute_90]" kernels.cubin "${flags[@]}"
refused cubin_says 2 "kernels.cubin is a cubin: SASS only" kernels.cubin "${flags[@]}"
refused sass_only 2 "-gencode arch=compute_90,code=[sm_90,compute_90]" app_sass_only "${flags[@]}"
refused sass_only_says 2 "but no PTX" app_sass_only "${flags[@]}"
refused host_only 2 "no CUDA code in host_only" host_only
refused launch 2 "--launch 1: the launches of a binary's host code are not read" app --launch 1
refused missing 2 "bankcheck check app --kernel tile_transpose --grid 'X[,Y[,Z]]' --block" \
  app --kernel tile_transpose
refused missing_no_host 2 "the launches in a binary's host code are not read" \
  app --kernel tile_transpose
grep -q "host code has" missing.err && fail "missing: the message quotes host code"
refused two_units_which 2 "2 translation units with kernels" two_units
refused two_units_list 2 "scale_reversed(float*, float)" two_units
refused no_kernel 2 "no kernel named 'nope'" app --kernel nope

# fix reads a binary too (an executable with --no-run: without it, fix runs the program as run
# does); --apply wants the source: it writes nothing, says why, exits 3.
"$bankcheck" fix --no-run app "${flags[@]}" --apply > fix.txt 2> fix.err
[ $? = 3 ] || { fail "fix app --apply: exit not 3"; cat fix.err; }
grep -q "needs the .cu source (the input is a binary: give its source src/kernels.cu)" fix.txt fix.err ||
  fail "fix --apply on a binary: no note naming the source"

# The source gone: the same counts, the lines by path and number without their text.
mv src/kernels.cu src/kernels.moved
# Without the source, the parameters have no names: p0, p1, ...
check gone app "${ptx_flags[@]}"
[ "$(cat gone.status)" = 0 ] || { fail "gone: exit $(cat gone.status)"; cat gone.err; }
"$python" -c "$compare" gone.json app.json counts || fail "gone: the counts differ without the source"
grep -q "kernels.cu:13:" gone.txt || fail "gone: the conflict is not at kernels.cu:13"
grep -q "tile\[x\]\[y\]" gone.txt && fail "gone: a source line is shown for a file that is gone"
refused gone_missing 2 "its source file, where a launch comment could be, was not found" \
  app --kernel strided

if [ $bad = 0 ]; then echo "binary input: all checks passed"; fi
exit $bad
