# As run from the repository root on the GPU machine, OUT an output folder. .dev/patches_before.cu
# and .dev/patches_b.cu / patches_v1.cu were: git show e75d7bb:src/device/patches.cu (before); the tree's
# patches.cu with laneid/smid read without asm volatile (b); git show cbb21df:src/device/patches.cu (v1).
#!/usr/bin/env bash
# in whichever regime this machine is, cpasync_tiles with the model's cp.async
# path (v0) and the warp's (v1), the call alone; the training loop with v1 (then v0).
set -u
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s); say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate,compute_mode,ecc.mode.current,memory.used --format=csv > $OUT/env.txt 2>&1
uname -r >> $OUT/env.txt; nproc >> $OUT/env.txt; ls /usr/local/cuda/compute-sanitizer/ | head -3 >> $OUT/env.txt
W=/tmp/w; mkdir -p $W/ext
export EXT_DIR=$W/ext TRITON_CACHE_DIR=$W/triton PYTHONUNBUFFERED=1
(python3 bench/device/python/train_loop.py 3 > $W/first.out 2>&1) &
for v in v0 v1; do
  src=src/device/patches.cu; [ $v = v1 ] && src=.dev/patches_v1.cu
  nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch -arch=sm_90 -std=c++20 -O3 \
    -Iinclude -I/usr/local/cuda/compute-sanitizer/include -o $W/$v.fatbin $src > $OUT/nvcc_$v.txt 2>&1 &
done
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBANKCHECK_BUILD_TESTS=OFF &&
  cmake --build build-gpu --target bankcheck bankcheck_run_agent bankcheck_cuda bankcheck_nvtx bankcheck_gpu; } > $OUT/build.log 2>&1
say "build rc=$?"
wait
B=$PWD/build-gpu/tools/bankcheck/bankcheck
A=($B run --backend gpu --launches all --no-progress --format json)
tm() { local tag=$1 cap=$2; shift 2; local s=$(date +%s.%N); timeout -k 5 $cap "$@" > $W/$tag.out 2>&1; local rc=$?
       echo "$tag $(awk -v a=$(date +%s.%N) -v b=$s 'BEGIN{printf "%.2f", a-b}') s rc=$rc $(grep -m1 'a launch' $W/$tag.out)" | tee -a $OUT/times.txt; }
tm cpt_plain 30 .dev/bin/cpt 50
for rep in 1 2; do
  tm cpt_call_$rep 60 "${A[@]}" --kernel 'regex:^nomatch$' -o /dev/null -- .dev/bin/cpt 50
  for v in v0 v1; do
    tm cpt_${v}_$rep 60 env BANKCHECK_GPU_PATCHES=$W/$v.fatbin "${A[@]}" -o $W/cpt_$v.json -- .dev/bin/cpt 50
  done
done
T=(python3 $PWD/bench/device/python/train_loop.py 200)
tm tl_plain 40 "${T[@]}"
tm tl_v1 80 env BANKCHECK_GPU_PATCHES=$W/v1.fatbin "${A[@]}" -o $W/tl_v1.json -- "${T[@]}"
left=$(( 280 - ($(date +%s) - t0) ))
[ $left -gt 20 ] && tm tl_v0 $left env BANKCHECK_GPU_PATCHES=$W/v0.fatbin "${A[@]}" -o $W/tl_v0.json -- "${T[@]}"
cat $OUT/env.txt $OUT/times.txt
(cd /tmp && tar czf $OUT/w.tar.gz w/*.out w/*.json)
say done
