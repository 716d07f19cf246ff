# As run from the repository root on the GPU machine, OUT an output folder. .dev/patches_before.cu
# and .dev/patches_b.cu / patches_v1.cu were: git show e75d7bb:src/device/patches.cu (before); the tree's
# patches.cu with laneid/smid read without asm volatile (b); git show cbb21df:src/device/patches.cu (v1).
#!/usr/bin/env bash
# the counter lookup through L1 (A), and A with laneid/smid not volatile (B),
# against the patches before, on cpasync_tiles, crossentropy 0 0 5, the training loop.
set -u
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
W=/tmp/w; mkdir -p $W/ext
export EXT_DIR=$W/ext TRITON_CACHE_DIR=$W/triton PYTHONUNBUFFERED=1
(python3 bench/device/python/train_loop.py 3 > $W/first.out 2>&1) &
nv=(-O3 -lineinfo -std=c++17 -gencode 'arch=compute_90,code=[sm_90,compute_90]')
nvcc "${nv[@]}" -o $W/cpt bench/device/programs/cpasync_tiles.cu > $OUT/nvcc_cpt.txt 2>&1 &
nvcc "${nv[@]}" -Iexamples/launch_heavy -o $W/ce examples/launch_heavy/crossentropy_forward.cu > $OUT/nvcc_ce.txt 2>&1 &
for v in before b; do
  nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch -arch=sm_90 -std=c++20 -O3 \
    -Iinclude -I/usr/local/cuda/compute-sanitizer/include -o $W/$v.fatbin .dev/patches_$v.cu > $OUT/nvcc_$v.txt 2>&1 &
done
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF &&
  cmake --build build-gpu --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx bankcheck_gpu; } > $OUT/build.log 2>&1
say "build rc=$?"
wait
B=$PWD/build-gpu/tools/bankcheck/bankcheck
cp build-gpu/lib/bankcheck-gpu/bankcheck-patches.fatbin $W/a.fatbin
A=($B run --backend gpu --launches all --no-progress --format json)
tm() { local tag=$1 cap=$2; shift 2; local s=$(date +%s.%N); timeout -k 5 $cap "$@" > $W/$tag.out 2>&1; local rc=$?
       echo "$tag $(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a-b}') s rc=$rc $(grep -m1 'a launch' $W/$tag.out)" | tee -a $OUT/times.txt; }
for rep in 1 2 3; do
  for v in before a b; do
    tm cpt_${v}_$rep 60 env BANKCHECK_GPU_PATCHES=$W/$v.fatbin "${A[@]}" -o $W/cpt_$v.json -- $W/cpt 50
  done
done
for v in before a b; do
  tm ce_$v 90 env BANKCHECK_GPU_PATCHES=$W/$v.fatbin "${A[@]}" -o $W/ce_$v.json -- $W/ce 0 0 5
  grep -i "time\|ms" $W/ce_$v.out | head -12 > $W/ce_$v.kern
done
tm ce_plain 60 $W/ce 0 0 5; grep -i "time\|ms" $W/ce_plain.out | head -12 > $W/ce_plain.kern
T=(python3 $PWD/bench/device/python/train_loop.py 200)
tm tl_plain 60 "${T[@]}"
for v in before a b; do
  tm tl_$v 90 env BANKCHECK_GPU_PATCHES=$W/$v.fatbin "${A[@]}" -o $W/tl_$v.json -- "${T[@]}"
done
tm tl_plain2 60 "${T[@]}"
python3 - <<'PY' >> $OUT/times.txt 2>&1
import json
def lines(p):
    r = json.load(open(p)); fs = [(f.get("report") or f) for f in r.get("files", [r])]
    return sorted((k["name"], l["space"], l.get("sass", ""), l.get("line"), l.get("requests"), l.get("wavefronts"), l.get("sectors"), l.get("ideal_wavefronts"), l.get("ideal_sectors"))
                  for f in fs for k in f["kernels"] for l in k["lines"])
for prog in ("cpt", "ce", "tl"):
    try:
        b = lines(f"/tmp/w/{prog}_before.json")
        for v in ("a", "b"):
            x = lines(f"/tmp/w/{prog}_{v}.json")
            print(prog, v, "lines", len(x), "equal to before" if x == b else f"DIFFER ({sum(p != q for p, q in zip(x, b))} of {len(b)})")
    except Exception as e:
        print(prog, "error", e)
PY
paste $W/ce_plain.kern $W/ce_before.kern $W/ce_a.kern $W/ce_b.kern >> $OUT/times.txt
cat $OUT/times.txt
(cd /tmp && tar czf $OUT/w.tar.gz w/*.out w/*.kern)
say done
