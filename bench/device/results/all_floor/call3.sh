# As run from the repository root on the GPU machine, OUT an output folder. .dev/patches_before.cu
# and .dev/patches_b.cu / patches_v1.cu were: git show e75d7bb:src/device/patches.cu (before); the tree's
# patches.cu with laneid/smid read without asm volatile (b); git show cbb21df:src/device/patches.cu (v1).
#!/usr/bin/env bash
# the cp.async fast path: train_loop --launches all with it and without it
# (the patches before, BANKCHECK_GPU_PATCHES); cp.async examples against the H100 truth.
set -u
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
mkdir -p /tmp/tl/ext
export EXT_DIR=/tmp/tl/ext TRITON_CACHE_DIR=/tmp/tl/triton PYTHONUNBUFFERED=1
(python3 bench/device/python/train_loop.py 3 > /tmp/tl/first.out 2>&1) &
nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch -arch=sm_90 -std=c++20 -O3 \
  -Iinclude -I/usr/local/cuda/compute-sanitizer/include -o /tmp/tl/before.fatbin .dev/patches_before.cu > $OUT/nvcc_before.txt 2>&1 &
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF &&
  cmake --build build-gpu --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx bankcheck_gpu; } > $OUT/build.log 2>&1
say "build rc=$?"
wait
B=$PWD/build-gpu/tools/bankcheck/bankcheck
T=(python3 $PWD/bench/device/python/train_loop.py 200)
tm() { local tag=$1 cap=$2; shift 2; local s=$(date +%s.%N); timeout -k 5 $cap "$@" > /tmp/tl/$tag.out 2>&1; local rc=$?
       echo "$tag $(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a-b}') s rc=$rc" | tee -a $OUT/times.txt; }
tm plain 60 "${T[@]}"
tm all_new 80 $B run --backend gpu --launches all --no-progress --format json -o /tmp/tl/all_new.json -- "${T[@]}"
tm all_before 85 env BANKCHECK_GPU_PATCHES=/tmp/tl/before.fatbin $B run --backend gpu --launches all --no-progress --format json -o /tmp/tl/all_before.json -- "${T[@]}"
tm all_xmma 80 $B run --backend gpu --launches all --kernel 'regex:xmma' --no-progress --format json -o /tmp/tl/all_xmma.json -- "${T[@]}"
tm all_notxmma 80 $B run --backend gpu --launches all --kernel 'regex:^((?!xmma).)*$' --no-progress --format json -o /tmp/tl/all_notxmma.json -- "${T[@]}"
say "examples"
mkdir -p carry/bin carry/lib; ln -sf $B carry/bin/bankcheck; ln -sfn $PWD/build-gpu/lib/bankcheck-gpu carry/lib/bankcheck-gpu
EXAMPLES=tuned/async,tensor/hgemm,tensor/attention,blind/hgemm_pipe,blind/flash_fwd,tuned/modern SPEED=0 \
  timeout $(( 585 - ($(date +%s) - t0) )) bash bench/device/examples.sh carry $OUT/ex > $OUT/ex.log 2>&1
say "examples rc=$?"; tail -5 $OUT/ex.log
python3 - <<'PY' >> $OUT/times.txt 2>&1
import json
for t in ("all_new", "all_before"):
    try:
        r = json.load(open(f"/tmp/tl/{t}.json"))
    except Exception as e:
        print(t, "no report", e); continue
    fs = [(f.get("report") or f) for f in r.get("files", [r])]
    rows = sorted((k["name"][:40], l.get("sass", ""), l["space"], l.get("requests"), l.get("wavefronts"), l.get("sectors"))
                  for f in fs for k in f["kernels"] if "xmma" in k["name"] for l in k["lines"])
    print(t, len(rows), "xmma lines"); [print(" ", x) for x in rows if "LDGSTS" in str(x[1])]
PY
cat $OUT/times.txt
(cd /tmp && tar czf $OUT/tl.tar.gz tl/*.json tl/*.out)
say done
