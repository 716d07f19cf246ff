# As run from the repository root on the GPU machine, OUT an output folder. .dev/patches_before.cu
# and .dev/patches_b.cu / patches_v1.cu were: git show e75d7bb:src/device/patches.cu (before); the tree's
# patches.cu with laneid/smid read without asm volatile (b); git show cbb21df:src/device/patches.cu (v1).
#!/usr/bin/env bash
# what the cp.async fast path saves (cpasync_tiles, patches before and now,
# and the sanitizer's call alone), its lines against ncu; the training loop's floor in one run.
set -u
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
git log --oneline -1 > $OUT/commit.txt 2>/dev/null
W=/tmp/w; mkdir -p $W/ext
export EXT_DIR=$W/ext TRITON_CACHE_DIR=$W/triton PYTHONUNBUFFERED=1
(python3 bench/device/python/train_loop.py 3 > $W/first.out 2>&1) &
nvcc -O3 -lineinfo -std=c++17 -gencode 'arch=compute_90,code=[sm_90,compute_90]' -o $W/cpt bench/device/programs/cpasync_tiles.cu > $OUT/nvcc_cpt.txt 2>&1 &
nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch -arch=sm_90 -std=c++20 -O3 \
  -Iinclude -I/usr/local/cuda/compute-sanitizer/include -o $W/before.fatbin .dev/patches_before.cu > $OUT/nvcc_before.txt 2>&1 &
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF &&
  cmake --build build-gpu --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx bankcheck_gpu; } > $OUT/build.log 2>&1
say "build rc=$?"
wait
B=$PWD/build-gpu/tools/bankcheck/bankcheck
A=($B run --backend gpu --launches all --no-progress --format json)
tm() { local tag=$1 cap=$2; shift 2; local s=$(date +%s.%N); timeout -k 5 $cap "$@" > $W/$tag.out 2>&1; local rc=$?
       echo "$tag $(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a-b}') s rc=$rc $(grep -m1 'a launch' $W/$tag.out)" | tee -a $OUT/times.txt; }
for rep in 1 2 3; do
  tm cpt_plain_$rep 60 $W/cpt 50
  tm cpt_now_$rep 60 "${A[@]}" -o $W/cpt_now.json -- $W/cpt 50
  tm cpt_before_$rep 60 env BANKCHECK_GPU_PATCHES=$W/before.fatbin "${A[@]}" -o $W/cpt_before.json -- $W/cpt 50
  tm cpt_call_$rep 60 "${A[@]}" --kernel 'regex:^nomatch$' -o /dev/null -- $W/cpt 50
done
tm cpt_default 60 $B run --backend gpu --no-progress --format json -o $W/cpt_default.json -- $W/cpt 2
tm cpt_ncu 120 ncu --section SourceCounters --filter-mode per-launch-config --launch-count 1 --page source --csv \
  --print-source cuda,sass --clock-control none --log-file $W/cpt_ncu.csv $W/cpt 2
python3 bench/device/compare_heavy.py $W/cpt_default.json $W/cpt_ncu.csv --run cpasync_tiles \
  --markdown $W/cpt_compare.md --summary $W/cpt_compare.sum > $W/cpt_compare.log 2>&1
echo "cpasync_tiles lines: $(cat $W/cpt_compare.sum)" | tee -a $OUT/times.txt
T=(python3 $PWD/bench/device/python/train_loop.py 200)
tm tl_plain 60 "${T[@]}"
tm tl_call 90 "${A[@]}" --kernel 'regex:^nomatch$' -o /dev/null -- "${T[@]}"
tm tl_all 90 "${A[@]}" -o $W/tl_all.json -- "${T[@]}"
tm tl_plain2 60 "${T[@]}"
cat $OUT/times.txt
(cd /tmp && tar czf $OUT/w.tar.gz w/*.json w/*.out w/*.md w/*.log w/*.sum w/cpt_ncu.csv)
say done
